grammar Import;
import Common;

s : ID ;
ID : [a-z]+ ;
