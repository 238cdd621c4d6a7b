lexer grammar Modes;

OPEN : '<' -> pushMode(TAG) ;
TEXT : ~'<'+ ;

mode TAG;
CLOSE : '>' -> popMode ;
NAME  : [a-z]+ ;
