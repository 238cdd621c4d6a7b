// . and ~ in parser rules: any token, any token but some.
grammar Wild;

s     : 'begin' .* 'end' | '(' ~(RP | 'x')* RP ;
A     : 'a' ;
B     : 'b' ;
X     : 'x' ;
RP    : ')' ;
WS    : ' '+ -> skip ;
