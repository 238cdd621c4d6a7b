// Non-greedy loops in lexer and parser rules.
grammar Lazy;

doc   : item* ;
item  : BLOCK | XML | STR | TRIPLE | LINE | word+? ';' | word?? '!' ;
word  : W ;

BLOCK  : '/*' .*? '*/' ;                  // stops at the first */
XML    : '<!--' .+? '-->' ;
STR    : '"' (ESC | .)*? '"' ;            // not a set: escapes, then any character but "
TRIPLE : '"""' .*? '"""' ;
LINE   : '//' .*? ('\r'? '\n' | '\r') ;
W      : [a-z]+ ;
fragment ESC : '\\' . ;
WS     : [ \n]+ -> skip ;
