/* A static function with the same name as one in lib.c. */
static int helper(int x) { return x + 1; }

int util_b(int x) { return helper(x); }
