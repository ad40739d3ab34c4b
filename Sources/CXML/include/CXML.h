// A pull reader of XML over libxml2's SAX2 push parser, for the XMP target.
//
// libxml2 (which libvips already links) parses; this file is the whole of
// what Swift sees of it: no libxml2 type appears here, every symbol is
// prefixed `cxml_`, and each call has a fixed arity. The reader is safe
// for untrusted bytes by construction, whatever its caller checks first:
//
// - no network, no external entity, no document type: a `<!DOCTYPE` ends
//   the reading (CXML_DOCUMENT_TYPE), the parser's callbacks off from
//   there; the reader's entity lookup knows XML's five (`&lt;` ...) alone,
//   so no other entity is ever expanded: a reference to one is an error;
// - no XInclude, no DTD loading, no entity substitution (XML_PARSE_NOENT
//   is never set), libxml2's own limits kept (no XML_PARSE_HUGE);
// - nested at most `max_depth` elements deep (CXML_TOO_DEEP);
// - bytes read as UTF-8 (a leading byte order mark skipped, an encoding
//   declaration ignored);
// - silent: libxml2's errors are captured (the first is kept, and ends
//   the reading), never printed, on whatever thread reads.
//
// Events come one at a time: the parser is fed a few KiB at a time and
// what it reports is queued until asked for; a caller that stops early
// leaves the rest unparsed.
#ifndef CXML_H
#define CXML_H

#include <stddef.h>

typedef struct cxml_reader cxml_reader;

typedef enum {
    /// The document ended, well-formed and whole.
    CXML_END_OF_DOCUMENT = 0,
    CXML_START_ELEMENT = 1,
    CXML_END_ELEMENT = 2,
    /// Character data (text, CDATA, XML's five entities and character
    /// references resolved), one run or part of one.
    CXML_TEXT = 3,
    /// The document cannot be read further: see cxml_reader_failure.
    CXML_FAILED = 4,
} cxml_event;

typedef enum {
    CXML_NO_FAILURE = 0,
    /// libxml2 found the bytes not well-formed XML (or namespace-
    /// well-formed): its error code (xmlParserErrors) and line are kept.
    CXML_NOT_WELL_FORMED = 1,
    /// A document type declaration: refused, not read.
    CXML_DOCUMENT_TYPE = 2,
    /// An element nested deeper than the reader's max_depth.
    CXML_TOO_DEEP = 3,
    CXML_OUT_OF_MEMORY = 4,
} cxml_failure;

/// One attribute of a start element. Strings are UTF-8, NUL-terminated;
/// `ns` is "" for an attribute without a namespace.
typedef struct {
    const char *local_name;
    const char *ns;
    const char *value;
    size_t value_length;
} cxml_attribute;

/// The event cxml_reader_next returned. Every pointer stays valid until
/// the next call of cxml_reader_next or cxml_reader_free.
typedef struct {
    /// START_ELEMENT and END_ELEMENT: the element's local name and
    /// namespace URI ("" when it has none).
    const char *local_name;
    const char *ns;
    /// START_ELEMENT: its attributes (namespace declarations are not).
    const cxml_attribute *attributes;
    int attribute_count;
    /// TEXT: the characters (UTF-8, not NUL-terminated).
    const char *text;
    size_t text_length;
} cxml_item;

/// A reader of a copy of `length` bytes at `bytes`, at most `max_depth`
/// elements deep (1 or more). NULL when out of memory. Starts libxml2
/// (xmlInitParser) once per process, from whichever thread comes first.
cxml_reader *cxml_reader_new(const void *bytes, size_t length, int max_depth);

void cxml_reader_free(cxml_reader *reader);

/// The next event, its data in `*item`. After END_OF_DOCUMENT or FAILED,
/// every further call returns the same.
cxml_event cxml_reader_next(cxml_reader *reader, cxml_item *item);

/// Why the reader failed (CXML_NO_FAILURE while it has not).
cxml_failure cxml_reader_failure(const cxml_reader *reader);

/// For CXML_NOT_WELL_FORMED: libxml2's error code and the line (from 1)
/// of the first error; 0 otherwise.
int cxml_reader_error_code(const cxml_reader *reader);
int cxml_reader_error_line(const cxml_reader *reader);

#endif
