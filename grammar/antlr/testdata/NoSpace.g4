// No hidden tokens: tokens are adjacent, as ANTLR requires here.
grammar NoSpace;

csv    : row (NL row)* NL? ;
row    : field (',' field)* ;
field  : TEXT | QUOTED | ;
TEXT   : ~[,"\r\n]+ ;
QUOTED : '"' ('""' | ~'"')* '"' ;
NL     : '\r'? '\n' ;
