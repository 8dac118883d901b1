/* validate.c - placeholder until written. */
