/*
 * A libFuzzer-style entry point that uses cJSON the way a program would:
 * parse a document, print it back (formatted, unformatted, into a
 * preallocated buffer), duplicate and compare it, read it through the
 * typed accessors, minify the text, and run cJSON_Utils over it (JSON
 * pointers, JSON Patch and merge patch). A document cJSON refuses is a
 * rejection: the entry returns -1. Everything allocated is freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "cJSON_Utils.h"

/* Results land here so that no call is optimised away. */
static volatile double sink;

/* walk reads every value through the accessors a program would use. */
static void walk(const cJSON *item, int depth)
{
    const cJSON *child;
    if (cJSON_IsNumber(item)) {
        sink += cJSON_GetNumberValue(item);
    } else if (cJSON_IsString(item)) {
        const char *s = cJSON_GetStringValue(item);
        sink += s != NULL ? (double)strlen(s) : 0;
    } else if (cJSON_IsBool(item)) {
        sink += cJSON_IsTrue(item) ? 1 : 0;
    } else if (cJSON_IsNull(item)) {
        sink += 0.5;
    } else if (cJSON_IsArray(item)) {
        int i, n = cJSON_GetArraySize(item);
        for (i = 0; i < n && i < 64; i++) {
            walk(cJSON_GetArrayItem(item, i), depth + 1);
        }
    } else if (cJSON_IsObject(item)) {
        cJSON_ArrayForEach(child, item) {
            /* Look each member up by name, as a reader of a known schema does. */
            const cJSON *found = cJSON_GetObjectItemCaseSensitive(item, child->string);
            if (found != NULL && cJSON_HasObjectItem(item, child->string)) {
                walk(found, depth + 1);
            }
        }
    }
}

/* pointers resolves the JSON pointer of the first members of the
 * document and checks that it leads back to them. */
static void pointers(cJSON *root)
{
    cJSON *child;
    int n = 0;
    if (!cJSON_IsObject(root) && !cJSON_IsArray(root)) {
        return;
    }
    cJSON_ArrayForEach(child, root) {
        char *pointer;
        if (n++ == 8) {
            break;
        }
        pointer = cJSONUtils_FindPointerFromObjectTo(root, child);
        if (pointer == NULL) {
            continue;
        }
        if (cJSONUtils_GetPointerCaseSensitive(root, pointer) != child) {
            sink += 1;
        }
        sink += cJSONUtils_GetPointer(root, pointer) != NULL;
        cJSON_free(pointer);
    }
}

/* patches diffs the document against a changed copy of itself, as JSON
 * Patch and as merge patch, and applies both diffs. */
static void patches(const cJSON *root)
{
    cJSON *from = cJSON_Duplicate(root, 1);
    cJSON *to = cJSON_Duplicate(root, 1);
    cJSON *diff, *merge, *merged;
    if (from == NULL || to == NULL) {
        cJSON_Delete(from);
        cJSON_Delete(to);
        return;
    }
    if (cJSON_IsObject(to)) {
        cJSON_AddStringToObject(to, "arbor", "added");
        cJSON_DeleteItemFromObjectCaseSensitive(to, to->child != NULL ? to->child->string : "");
    } else if (cJSON_IsArray(to)) {
        cJSON_AddItemToArray(to, cJSON_CreateNumber(42));
        if (cJSON_GetArraySize(to) > 2) {
            cJSON_DeleteItemFromArray(to, 0);
        }
    }
    diff = cJSONUtils_GeneratePatchesCaseSensitive(from, to);
    if (diff != NULL) {
        cJSON *target = cJSON_Duplicate(from, 1);
        if (cJSONUtils_ApplyPatchesCaseSensitive(target, diff) == 0) {
            sink += cJSON_Compare(target, to, 1);
        }
        cJSON_Delete(target);
        cJSON_Delete(diff);
    }
    merge = cJSONUtils_GenerateMergePatchCaseSensitive(from, to);
    if (merge != NULL) {
        merged = cJSONUtils_MergePatchCaseSensitive(cJSON_Duplicate(from, 1), merge);
        sink += cJSON_Compare(merged, to, 1);
        cJSON_Delete(merged);
        cJSON_Delete(merge);
    }
    cJSONUtils_SortObject(from);
    cJSON_Delete(from);
    cJSON_Delete(to);
}

/* reprint prints the document, parses the text again and compares. */
static void reprint(const cJSON *root)
{
    char *formatted = cJSON_Print(root);
    char *compact = cJSON_PrintUnformatted(root);
    if (formatted != NULL) {
        size_t size = strlen(formatted) + 5; /* as cJSON.h asks */
        char *buf = malloc(size);
        if (buf != NULL && size < 1 << 30) {
            sink += cJSON_PrintPreallocated((cJSON *)root, buf, (int)size, 1);
            sink += cJSON_PrintPreallocated((cJSON *)root, buf, (int)size, 0);
        }
        free(buf);
    }
    if (compact != NULL) {
        cJSON *again = cJSON_Parse(compact);
        sink += cJSON_Compare(root, again, 1);
        cJSON_Delete(again);
    }
    cJSON_free(formatted);
    cJSON_free(compact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    const char *end = NULL;
    cJSON *root, *copy;
    if (text == NULL) {
        return -1;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    root = cJSON_ParseWithLengthOpts(text, size + 1, &end, 1);
    if (root == NULL) {
        sink += cJSON_GetErrorPtr() != NULL;
        free(text);
        return -1;
    }
    walk(root, 0);
    reprint(root);

    copy = cJSON_Duplicate(root, 1);
    sink += cJSON_Compare(root, copy, 1) + cJSON_Compare(root, copy, 0);
    cJSON_Delete(copy);

    pointers(root);
    patches(root);

    cJSON_Minify(text);
    copy = cJSON_Parse(text);
    sink += cJSON_Compare(root, copy, 1);
    cJSON_Delete(copy);

    cJSON_Delete(root);
    free(text);
    return 0;
}
