#!/bin/bash
# callgrind instructions (serial) of each binary given
for b in "$@"; do echo "$b $(nice ./cgcount ./$b)"; done
