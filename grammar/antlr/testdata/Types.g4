// -> type(T): two rules make one token; tokens { } declares one that
// only -> type makes.
grammar Types;
tokens { NUM }

sum : NUM ('+' NUM)* ;
HEX : '0x' [0-9a-f]+ -> type(NUM) ;
DEC : [0-9]+ -> type(NUM) ;
WS  : ' '+ -> channel(HIDDEN) ;
