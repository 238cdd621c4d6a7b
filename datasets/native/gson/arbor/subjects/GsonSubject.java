package arbor.subjects;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

// GsonSubject uses gson as an application would: it parses a JSON
// document strictly (gson's own parsing is lenient, so a strict
// JsonReader does it), reads the tree with gson's typed accessors, writes
// it back out compactly and pretty-printed, binds it to plain Java
// collections and back, and copies and compares the trees. Invalid JSON
// is rejected with an exception. The Gson objects are made per call, as
// many callers do, so that what a call runs does not depend on the calls
// before it (gson caches type adapters per Gson object).
public final class GsonSubject {
    private GsonSubject() {}

    public static void run(byte[] data) throws IOException {
        String text = new String(data, StandardCharsets.UTF_8);
        Gson gson = new Gson();
        JsonReader reader = new JsonReader(new StringReader(text));
        reader.setLenient(false);
        JsonElement tree = gson.getAdapter(JsonElement.class).read(reader);
        if (reader.peek() != JsonToken.END_DOCUMENT) {
            throw new IOException("data after the JSON value at " + reader.getPath());
        }
        walk(tree, 0);

        String compact = gson.toJson(tree);
        Gson pretty = new GsonBuilder().setPrettyPrinting().serializeNulls().disableHtmlEscaping().create();
        String printed = pretty.toJson(tree);
        if (!gson.fromJson(printed, JsonElement.class).equals(tree)) {
            throw new AssertionError("pretty-printed JSON reads back differently: " + printed);
        }

        // The default Gson leaves null members out; the pretty one keeps them.
        Object value = gson.fromJson(printed, Object.class);
        if (tree.isJsonObject()) {
            Map<?, ?> m = gson.fromJson(printed, Map.class);
            if (m.size() != tree.getAsJsonObject().size()) {
                throw new AssertionError("map of " + m.size() + " entries from an object of " + tree.getAsJsonObject().size());
            }
        } else if (tree.isJsonArray()) {
            List<?> l = gson.fromJson(compact, List.class); // nulls in arrays stay
            if (l.size() != tree.getAsJsonArray().size()) {
                throw new AssertionError("list of " + l.size() + " elements from an array of " + tree.getAsJsonArray().size());
            }
        }
        JsonElement back = pretty.toJsonTree(value);
        pretty.toJson(back);

        JsonElement copy = tree.deepCopy();
        if (!copy.equals(tree) || copy.hashCode() != tree.hashCode()) {
            throw new AssertionError("a deep copy differs from its original");
        }
    }

    // walk reads every value with the accessor its type calls for.
    private static void walk(JsonElement e, int depth) {
        if (e.isJsonObject()) {
            JsonObject o = e.getAsJsonObject();
            for (Map.Entry<String, JsonElement> entry : o.entrySet()) {
                if (!o.has(entry.getKey())) {
                    throw new AssertionError("missing key " + entry.getKey());
                }
                walk(entry.getValue(), depth + 1);
            }
            o.keySet();
        } else if (e.isJsonArray()) {
            JsonArray a = e.getAsJsonArray();
            for (int i = 0; i < a.size(); i++) {
                walk(a.get(i), depth + 1);
            }
            if (a.size() == 1 && a.get(0).isJsonPrimitive()) {
                a.getAsString(); // a one-element array reads as its element
            }
        } else if (e.isJsonPrimitive()) {
            JsonPrimitive p = e.getAsJsonPrimitive();
            if (p.isNumber()) {
                p.getAsNumber();
                p.getAsDouble();
                try {
                    p.getAsBigDecimal();
                    p.getAsLong();
                } catch (NumberFormatException tooBig) {
                    // Valid JSON that a long cannot hold.
                }
            } else if (p.isBoolean()) {
                p.getAsBoolean();
            } else {
                p.getAsString();
            }
        } else if (e.isJsonNull()) {
            e.getAsJsonNull();
        }
    }
}
