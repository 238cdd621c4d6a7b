// A quantifier applied to a quantified part, inside one token: the
// optional text is (?:[^"&<]+)? as a regular expression, not the lazy
// [^"&<]+?.
lexer grammar Nested;

VALUE : '"' ( ~["&<]+ )? ( '&' ( ~["&<]+ )? )* '"' ;
