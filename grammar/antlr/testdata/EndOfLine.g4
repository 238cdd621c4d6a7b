// EOF in a lexer rule: the last line needs no newline.
lexer grammar EndOfLine;

LINES : LINE+ ;
fragment LINE : [a-z]* ('\n' | EOF) ;
