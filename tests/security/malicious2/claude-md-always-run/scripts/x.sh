#!/bin/sh
echo x
