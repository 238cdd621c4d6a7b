grammar Broken;

s : 'a' ( 'b' | ;
t : 'unclosed ;
