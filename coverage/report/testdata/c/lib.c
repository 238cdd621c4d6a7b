/* A tiny subject: on_a runs on input "a", on_b (and util.c's static
   helper) on any other input. */
#include <stdio.h>

int util_b(int x);

static int helper(int x) { return x * 2; }

int on_a(const char *s) { return helper(s[0]); }

int on_b(const char *s) { return util_b(s[0]) + 1; }

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	if (argv[1][0] == 'a')
		on_a(argv[1]);
	else
		on_b(argv[1]);
	return 0;
}
