package demo;

// A tiny subject: main runs parse on its argument; onlyB runs on "b" only.
public class Parser {
    private final String input;

    Parser(String input) {
        this.input = input;
    }

    int parse(int depth, String[] rest) {
        if (input.equals("b")) {
            return (int) onlyB();
        }
        return new Inner().size(input);
    }

    long onlyB() {
        return 42L;
    }

    static class Inner {
        int size(String s) {
            return s.length();
        }
    }

    public static void main(String[] args) {
        System.exit(new Parser(args[0]).parse(0, args) == 42 ? 0 : 0);
    }
}
