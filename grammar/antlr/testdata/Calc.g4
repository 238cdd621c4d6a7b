// A combined grammar: parser and lexer rules, fragments, literals with
// escapes, alternative and element labels, hidden white space and comments.
grammar Calc;

prog : stat+ EOF ;

stat : target=ID '=' value=expr ';'   # Assign
     | 'print' args+=expr (',' args+=expr)* ';' # Print
     | expr ';'                       # Bare
     ;

expr : <assoc=right> expr '^' expr    # Pow
     | expr op=('*' | '/') expr       # Mul
     | expr ('+' | '-') expr          # Add
     | '-' expr                       # Neg
     | NUMBER                         # Num
     | ID                             # Var
     | STRING                         # Str
     | '(' expr ')'                   # Parens
     ;

ID     : LETTER (LETTER | DIGIT)* ;
NUMBER : DIGIT+ ('.' DIGIT+)? ;
STRING : '\'' (ESC | ~['\\\r\n])* '\'' ;
fragment ESC    : '\\' ['\\nt] | '\\u' HEX HEX HEX HEX ;
fragment HEX    : [0-9a-fA-F] ;
fragment LETTER : [a-zA-Z_] ;
fragment DIGIT  : [0-9] ;

WS      : [ \t\r\n]+ -> skip ;
COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
LINE    : '#' ~[\r\n]* -> skip ;
