// A parser grammar whose lexer is found by name: ListLexer.g4.
parser grammar ListParser;

list : '[' (item (',' item)*)? ']' ;
item : WORD | INT | list ;
