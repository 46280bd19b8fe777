"""The functional core: game rules that know no hardware, clock or randomness of their own."""
