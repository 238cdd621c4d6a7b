grammar Sum;
sum  : term (('+' | '-') term)* EOF ;
term : INT | '(' sum ')' ;
INT  : [0-9]+ ;
WS   : [ \t\r\n]+ -> skip ;
