// Character sets, ranges, negation, wildcards, escapes and Unicode.
grammar Sets;

words : (WORD | RANGED | NOTX | ANY | UNI | ESCAPED | QUOTE | DASHES)+ ;

WORD    : [a-z\u00e9]+ ;                // sets with a \u escape
RANGED  : 'A'..'F' ('0'..'9')* ;        // ranges of literals
NOTX    : '!' ~[x\n ] ;                 // ~ on a set
ANY     : '@' . ;                       // any character
UNI     : '%' [\p{Greek}]+ ;            // a Unicode property
ESCAPED : '\\' [\]\-\\] ;               // escapes inside a set: ] - \
QUOTE   : '\'' ~('\'' | '\n')* '\'' ;   // ~ on a block of literals
DASHES  : '-'+ '\u{1F600}'? ;           // \u{...}
WS      : ' '+ -> skip ;
