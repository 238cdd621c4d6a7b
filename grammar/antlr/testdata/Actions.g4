// Actions are dropped with a warning.
grammar Actions;

@header { package foo; }
@members { int count = 0; }

s locals [int n = 0] : (A {count++;})+ {System.out.println("}");} ;
A : 'a' { setText("A"); } ;
