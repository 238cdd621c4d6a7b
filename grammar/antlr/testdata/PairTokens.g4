lexer grammar PairTokens;

KEY   : [a-z]+ ;
EQ    : '=' ;
SEMI  : ';' ;
VALUE : '"' ~["]* '"' ;
