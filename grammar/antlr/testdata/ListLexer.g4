lexer grammar ListLexer;

LBRACK : '[' ;
RBRACK : ']' ;
COMMA  : ',' ;
WORD   : [a-z]+ ;
INT    : [0-9]+ ;
SPACE  : ' '+ -> skip ;
