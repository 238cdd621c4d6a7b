// Keywords and identifiers: 'if' followed by an identifier needs a space.
grammar Keywords;

stmt  : 'if' ID 'then' ID | ID '(' ID ')' | ID ID | 'x' '+' 'y' ;
ID    : [a-z]+ ;
WS    : [ ]+ -> skip ;
