grammar Predicate;

s  : {this.ok()}? ID | INT ;
ID : [a-z]+ ;
INT : [0-9]+ ;
