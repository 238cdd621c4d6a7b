// caseInsensitive = true: literals and sets match in either case.
grammar Case;
options { caseInsensitive = true; }

query : 'select' NAME (',' NAME)* 'from' NAME ;
NAME  : [a-z]+ ;
WS    : [ ]+ -> skip ;
