// Driver for scripts/bench-layout: rapidjson (header-only C++, from the python-rapidjson sdist) builds a
// deterministic JSON document, then parses it (DOM and SAX), queries it with JSON pointers, validates it against
// a schema and writes it back (compact and pretty), ROUNDS times.
// Usage: jsondrv ROUNDS MODE  (MODE "numbers": numeric records; "text": string-heavy records); prints a checksum.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include "rapidjson/document.h"
#include "rapidjson/pointer.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/reader.h"
#include "rapidjson/schema.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

using namespace rapidjson;

static std::string make_doc(int n, bool text, unsigned seed) {
    std::string s = "{\"items\":[";
    unsigned x = seed;
    char buf[256];
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        if (text)
            snprintf(buf, sizeof buf,
                     "%s{\"id\":%d,\"name\":\"item \\\"%u\\\" \\u00e9\\t%08x\",\"tags\":[\"t%u\",\"u%u\",\"long tag %u\"],"
                     "\"note\":\"%0*u\",\"ok\":%s}",
                     i ? "," : "", i, x % 1000, x, x % 7, x % 5, x % 97, 20 + (int)(x % 40), x, (x & 1) ? "true" : "false");
        else
            snprintf(buf, sizeof buf,
                     "%s{\"id\":%d,\"v\":[%u,%d,%.6g,%.3e,%u],\"w\":{\"a\":%u.%u,\"b\":-%u,\"c\":null},\"ok\":%s}",
                     i ? "," : "", i, x % 100000, -(int)(x % 977), (x % 10007) / 7.0, x * 1.5e-3, x >> 7,
                     x % 1000, x % 97, x % 3333, (x & 2) ? "true" : "false");
        s += buf;
    }
    s += "],\"count\":" + std::to_string(n) + "}";
    return s;
}

struct Counter : BaseReaderHandler<UTF8<>, Counter> {
    unsigned long long n = 0, chars = 0;
    bool Default() { n++; return true; }
    bool String(const char *, SizeType len, bool) { n++; chars += len; return true; }
    bool Key(const char *, SizeType len, bool) { n++; chars += len; return true; }
};

static const char *SCHEMA = R"({"type":"object","required":["items","count"],"properties":{
  "count":{"type":"integer","minimum":0},
  "items":{"type":"array","items":{"type":"object","required":["id"],"properties":{
    "id":{"type":"integer"},"ok":{"type":"boolean"},"name":{"type":"string","maxLength":200},
    "tags":{"type":"array","items":{"type":"string"}},"note":{"type":"string","pattern":"^[0-9]+$"},
    "v":{"type":"array","items":{"type":"number"}},
    "w":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"c":{"type":"null"}}}}}}}})";

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    bool text = argc > 2 && strcmp(argv[2], "text") == 0;
    Document sd;
    sd.Parse(SCHEMA);
    SchemaDocument schema(sd);
    unsigned long long sum = 0;
    for (int r = 0; r < rounds; r++) {
        std::string json = make_doc(3000, text, 17u + r);
        Document d;
        d.Parse(json.c_str());
        if (d.HasParseError()) { fprintf(stderr, "parse error\n"); return 1; }
        SchemaValidator v(schema);
        if (!d.Accept(v)) { fprintf(stderr, "invalid\n"); return 1; }
        for (int i = 0; i < 3000; i += 7) {
            std::string p = "/items/" + std::to_string(i) + "/id";
            if (const Value *x = Pointer(p.c_str()).Get(d)) sum += x->GetInt();
        }
        StringBuffer sb;
        Writer<StringBuffer> w(sb);
        d.Accept(w);
        StringBuffer pb;
        PrettyWriter<StringBuffer> pw(pb);
        d.Accept(pw);
        Counter c;
        Reader reader;
        StringStream ss(sb.GetString());
        reader.Parse(ss, c);
        sum += sb.GetSize() + pb.GetSize() + c.n + c.chars;
    }
    printf("%llu\n", sum);
    return 0;
}
