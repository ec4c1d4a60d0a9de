"""Pure text (folding, cleaning, names, analysis, translation): the floor every stage stands on."""
