/* scan.c - placeholder until written. */
