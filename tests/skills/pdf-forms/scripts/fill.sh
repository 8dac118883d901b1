#!/bin/sh
# fill.sh FORM.pdf RECORD.json OUT.pdf - fill a form with pdftk when present.
set -eu
if [ $# -ne 3 ]; then
	echo "usage: fill.sh FORM.pdf RECORD.json OUT.pdf" >&2
	exit 2
fi
if ! command -v pdftk >/dev/null 2>&1; then
	echo "fill.sh: pdftk is not installed; install it or fill the form by hand" >&2
	exit 1
fi
pdftk "$1" fill_form "$2" output "$3"
