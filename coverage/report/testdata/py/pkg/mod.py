"""A tiny subject: Parser.only_b runs on input "b", helper on others."""
import sys


def top(x):
    if x == "b":
        return Parser().only_b()
    return helper(x)


def helper(x):
    def inner():
        return 1

    return inner() + len(x)


class Parser:
    def only_b(self):
        return 2

    async def never(self):
        pass


if __name__ == "__main__":
    top(sys.argv[1])
