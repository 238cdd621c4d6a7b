// A parser grammar whose lexer is named by tokenVocab.
parser grammar Pairs;
options { tokenVocab = PairTokens; }

pairs : pair (SEMI pair)* ;
pair  : KEY EQ VALUE ;
