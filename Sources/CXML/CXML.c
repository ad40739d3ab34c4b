#include "CXML.h"
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/entities.h>
#include <libxml/xmlerror.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The parser is fed this much at a time: what one piece reports is queued. */
enum { CXML_CHUNK = 4096 };

/* Queued events and attributes point into the arena by offset: it grows
 * while a piece is parsed, and is emptied before the next piece. */
typedef struct {
    cxml_event kind;
    size_t local_name, ns;
    size_t text, text_length;
    size_t first_attribute;
    int attribute_count;
} cxml_queued_event;

typedef struct {
    size_t local_name, ns, value, value_length;
} cxml_queued_attribute;

struct cxml_reader {
    xmlParserCtxtPtr parser;
    unsigned char *bytes;
    size_t length, fed;
    int max_depth, depth;
    /* The parser has had every byte, or has stopped. */
    int finished;
    cxml_failure failure;
    int error_code, error_line;

    cxml_queued_event *events;
    size_t event_count, event_capacity, next_event;
    cxml_queued_attribute *attributes;
    size_t attribute_count, attribute_capacity;
    char *arena;
    size_t arena_length, arena_capacity;
    /* The attributes of the event handed out, as pointers. */
    cxml_attribute *current;
    size_t current_capacity;
};

static pthread_once_t cxml_started = PTHREAD_ONCE_INIT;

static void cxml_start(void) { xmlInitParser(); }

/* Growth of the reader's buffers; on failure the reader stops. */
static int cxml_reserve(void **buffer, size_t *capacity, size_t needed, size_t size) {
    if (needed <= *capacity) return 1;
    size_t wanted = *capacity ? *capacity : 64;
    while (wanted < needed) {
        if (wanted > SIZE_MAX / 2 / size) return 0;
        wanted *= 2;
    }
    void *grown = realloc(*buffer, wanted * size);
    if (!grown) return 0;
    *buffer = grown;
    *capacity = wanted;
    return 1;
}

/* The first failure is kept. The parser is not halted from inside its
 * callbacks (xmlStopParser frees the input that the parser's caller may
 * still point into): its callbacks are disabled instead, as after a fatal
 * error, it reads to the end of the piece it has, and is fed no more. */
static void cxml_fail(cxml_reader *reader, cxml_failure failure) {
    if (reader->failure == CXML_NO_FAILURE) reader->failure = failure;
    reader->parser->disableSAX = 1;
}

/* Copies `length` bytes and a NUL into the arena; SIZE_MAX when out of memory. */
static size_t cxml_keep(cxml_reader *reader, const void *bytes, size_t length) {
    if (length > SIZE_MAX - reader->arena_length - 1
        || !cxml_reserve((void **)&reader->arena, &reader->arena_capacity, reader->arena_length + length + 1, 1)) {
        cxml_fail(reader, CXML_OUT_OF_MEMORY);
        return SIZE_MAX;
    }
    size_t offset = reader->arena_length;
    if (length) memcpy(reader->arena + offset, bytes, length);
    reader->arena[offset + length] = 0;
    reader->arena_length += length + 1;
    return offset;
}

static size_t cxml_keep_string(cxml_reader *reader, const xmlChar *string) {
    return cxml_keep(reader, string ? string : (const xmlChar *)"", string ? strlen((const char *)string) : 0);
}

static size_t cxml_unescape_ampersands(char *value, size_t length);

/* A namespace URI, from an xmlns attribute's value: written as attribute
 * values are (see cxml_unescape_ampersands). */
static size_t cxml_keep_namespace(cxml_reader *reader, const xmlChar *uri) {
    size_t offset = cxml_keep_string(reader, uri);
    if (offset != SIZE_MAX && uri && strchr((const char *)uri, '&')) {
        cxml_unescape_ampersands(reader->arena + offset, strlen(reader->arena + offset));
    }
    return offset;
}

static cxml_queued_event *cxml_queue(cxml_reader *reader, cxml_event kind) {
    if (!cxml_reserve((void **)&reader->events, &reader->event_capacity, reader->event_count + 1,
                      sizeof(cxml_queued_event))) {
        cxml_fail(reader, CXML_OUT_OF_MEMORY);
        return NULL;
    }
    cxml_queued_event *event = &reader->events[reader->event_count++];
    memset(event, 0, sizeof *event);
    event->kind = kind;
    return event;
}

/* Without entity substitution (XML_PARSE_NOENT), libxml2 writes an
 * attribute value's `&` (from `&amp;` or `&#38;`) as `&#38;`, so that a
 * tree built from it would serialise right; no other `&` can be left in a
 * value (any other entity is an error here). Turns each back into `&`, in
 * place, NUL-terminated again; returns the new length. */
static size_t cxml_unescape_ampersands(char *value, size_t length) {
    size_t read = 0, written = 0;
    while (read < length) {
        if (value[read] == '&' && length - read >= 5 && memcmp(value + read, "&#38;", 5) == 0) {
            value[written++] = '&';
            read += 5;
        } else {
            value[written++] = value[read++];
        }
    }
    value[written] = 0;
    return written;
}

static void cxml_on_start(void *context, const xmlChar *local_name, const xmlChar *prefix, const xmlChar *uri,
                          int namespace_count, const xmlChar **namespaces, int attribute_count, int defaulted,
                          const xmlChar **attributes) {
    (void)prefix, (void)namespace_count, (void)namespaces, (void)defaulted;
    cxml_reader *reader = context;
    if (reader->failure != CXML_NO_FAILURE) return;
    size_t name = cxml_keep_string(reader, local_name), ns = cxml_keep_namespace(reader, uri);
    if (name == SIZE_MAX || ns == SIZE_MAX) return;
    size_t first = reader->attribute_count;
    if (attribute_count < 0) attribute_count = 0;
    if (!cxml_reserve((void **)&reader->attributes, &reader->attribute_capacity, first + (size_t)attribute_count,
                      sizeof(cxml_queued_attribute))) {
        cxml_fail(reader, CXML_OUT_OF_MEMORY);
        return;
    }
    /* Five pointers an attribute: local name, prefix, URI, value, value's end. */
    for (int index = 0; index < attribute_count; index++) {
        const xmlChar **attribute = attributes + 5 * index;
        size_t length = (size_t)(attribute[4] - attribute[3]);
        cxml_queued_attribute kept = {
            cxml_keep_string(reader, attribute[0]), cxml_keep_namespace(reader, attribute[2]),
            cxml_keep(reader, attribute[3], length), length,
        };
        if (kept.local_name == SIZE_MAX || kept.ns == SIZE_MAX || kept.value == SIZE_MAX) return;
        kept.value_length = cxml_unescape_ampersands(reader->arena + kept.value, length);
        reader->attributes[reader->attribute_count++] = kept;
    }
    cxml_queued_event *event = cxml_queue(reader, CXML_START_ELEMENT);
    if (!event) return;
    event->local_name = name;
    event->ns = ns;
    event->first_attribute = first;
    event->attribute_count = attribute_count;
    /* Queued first, so that the caller sees the element that went too deep. */
    if (++reader->depth > reader->max_depth) cxml_fail(reader, CXML_TOO_DEEP);
}

static void cxml_on_end(void *context, const xmlChar *local_name, const xmlChar *prefix, const xmlChar *uri) {
    (void)prefix;
    cxml_reader *reader = context;
    if (reader->failure != CXML_NO_FAILURE) return;
    reader->depth--;
    size_t name = cxml_keep_string(reader, local_name), ns = cxml_keep_namespace(reader, uri);
    if (name == SIZE_MAX || ns == SIZE_MAX) return;
    cxml_queued_event *event = cxml_queue(reader, CXML_END_ELEMENT);
    if (!event) return;
    event->local_name = name;
    event->ns = ns;
}

static void cxml_on_text(void *context, const xmlChar *characters, int length) {
    cxml_reader *reader = context;
    if (reader->failure != CXML_NO_FAILURE || length <= 0) return;
    /* A run the parser reports in parts is queued as one, when nothing came between. */
    if (reader->event_count > reader->next_event) {
        cxml_queued_event *last = &reader->events[reader->event_count - 1];
        if (last->kind == CXML_TEXT && last->text + last->text_length + 1 == reader->arena_length) {
            if (!cxml_reserve((void **)&reader->arena, &reader->arena_capacity, reader->arena_length + (size_t)length, 1)) {
                cxml_fail(reader, CXML_OUT_OF_MEMORY);
                return;
            }
            memcpy(reader->arena + last->text + last->text_length, characters, (size_t)length);
            last->text_length += (size_t)length;
            reader->arena[last->text + last->text_length] = 0;
            reader->arena_length += (size_t)length;
            return;
        }
    }
    size_t text = cxml_keep(reader, characters, (size_t)length);
    if (text == SIZE_MAX) return;
    cxml_queued_event *event = cxml_queue(reader, CXML_TEXT);
    if (!event) return;
    event->text = text;
    event->text_length = (size_t)length;
}

/* A document type declaration: refused, the parser's callbacks off before
 * its internal subset; what that declares, the entity lookup never finds. */
static void cxml_on_document_type(void *context, const xmlChar *name, const xmlChar *external, const xmlChar *system) {
    (void)name, (void)external, (void)system;
    cxml_fail(context, CXML_DOCUMENT_TYPE);
}

/* XML's five predefined entities, and no other. */
static xmlEntityPtr cxml_on_entity(void *context, const xmlChar *name) {
    (void)context;
    return xmlGetPredefinedEntity(name);
}

/* Every error of this parse, from the parser or (through the thread's
 * handlers, set while it runs) from elsewhere in libxml2: the first error
 * is kept; warnings are not errors. */
static void cxml_on_error(void *context, xmlErrorPtr error) {
    cxml_reader *reader = context;
    if (!reader || !error || error->level < XML_ERR_ERROR) return;
    if (reader->failure != CXML_NO_FAILURE) return;
    reader->error_code = error->code;
    reader->error_line = error->line;
    /* An error the parser would read past (a namespace's) ends the reading too. */
    cxml_fail(reader, CXML_NOT_WELL_FORMED);
}

static void cxml_on_generic_error(void *context, const char *message, ...) { (void)context, (void)message; }

static void cxml_feed(cxml_reader *reader) {
    size_t left = reader->length - reader->fed;
    size_t size = left < CXML_CHUNK ? left : CXML_CHUNK;
    int last = size == left;
    /* libxml2's thread-local handlers, ours while it parses on this thread, then put back. */
    xmlGenericErrorFunc generic = xmlGenericError;
    void *generic_context = xmlGenericErrorContext;
    xmlStructuredErrorFunc structured = xmlStructuredError;
    void *structured_context = xmlStructuredErrorContext;
    xmlSetGenericErrorFunc(reader, cxml_on_generic_error);
    xmlSetStructuredErrorFunc(reader, cxml_on_error);
    xmlParseChunk(reader->parser, (const char *)reader->bytes + reader->fed, (int)size, last);
    xmlGenericError = generic;
    xmlGenericErrorContext = generic_context;
    xmlStructuredError = structured;
    xmlStructuredErrorContext = structured_context;
    reader->fed += size;
    if (last || reader->failure != CXML_NO_FAILURE || reader->parser->disableSAX
        || reader->parser->instate == XML_PARSER_EOF) {
        reader->finished = 1;
    }
}

cxml_reader *cxml_reader_new(const void *bytes, size_t length, int max_depth) {
    pthread_once(&cxml_started, cxml_start);
    if (length > INT32_MAX) return NULL;
    cxml_reader *reader = calloc(1, sizeof *reader);
    if (!reader) return NULL;
    reader->max_depth = max_depth < 1 ? 1 : max_depth;
    /* A UTF-8 byte order mark is not the document's. */
    const unsigned char *start = bytes;
    if (length >= 3 && start[0] == 0xEF && start[1] == 0xBB && start[2] == 0xBF) start += 3, length -= 3;
    reader->bytes = malloc(length ? length : 1);
    if (!reader->bytes) return cxml_reader_free(reader), NULL;
    if (length) memcpy(reader->bytes, start, length);
    reader->length = length;

    xmlSAXHandler handlers;
    memset(&handlers, 0, sizeof handlers);
    handlers.initialized = XML_SAX2_MAGIC;
    handlers.startElementNs = cxml_on_start;
    handlers.endElementNs = cxml_on_end;
    handlers.characters = cxml_on_text;
    handlers.ignorableWhitespace = cxml_on_text;
    handlers.cdataBlock = cxml_on_text;
    handlers.internalSubset = cxml_on_document_type;
    handlers.getEntity = cxml_on_entity;
    handlers.serror = cxml_on_error;
    /* No bytes yet: the encoding is ours to set, not guessed from them. */
    reader->parser = xmlCreatePushParserCtxt(&handlers, reader, NULL, 0, NULL);
    if (!reader->parser) return cxml_reader_free(reader), NULL;
    xmlCtxtUseOptions(reader->parser, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_IGNORE_ENC);
    xmlSwitchEncoding(reader->parser, XML_CHAR_ENCODING_UTF8);
    return reader;
}

void cxml_reader_free(cxml_reader *reader) {
    if (!reader) return;
    if (reader->parser) {
        /* A document libxml2 made on its own to hold a document type's
         * entities ("expat compatibility in SAX mode"): the caller's to free. */
        if (reader->parser->myDoc) xmlFreeDoc(reader->parser->myDoc);
        reader->parser->myDoc = NULL;
        xmlFreeParserCtxt(reader->parser);
    }
    free(reader->bytes);
    free(reader->events);
    free(reader->attributes);
    free(reader->arena);
    free(reader->current);
    free(reader);
}

cxml_event cxml_reader_next(cxml_reader *reader, cxml_item *item) {
    memset(item, 0, sizeof *item);
    while (reader->next_event == reader->event_count) {
        if (reader->finished || reader->failure != CXML_NO_FAILURE) {
            return reader->failure == CXML_NO_FAILURE ? CXML_END_OF_DOCUMENT : CXML_FAILED;
        }
        reader->event_count = reader->next_event = 0;
        reader->attribute_count = 0;
        reader->arena_length = 0;
        cxml_feed(reader);
    }
    const cxml_queued_event *event = &reader->events[reader->next_event++];
    switch (event->kind) {
    case CXML_START_ELEMENT:
        if (!cxml_reserve((void **)&reader->current, &reader->current_capacity, (size_t)event->attribute_count,
                          sizeof(cxml_attribute))) {
            cxml_fail(reader, CXML_OUT_OF_MEMORY);
            reader->next_event = reader->event_count;
            return CXML_FAILED;
        }
        for (int index = 0; index < event->attribute_count; index++) {
            const cxml_queued_attribute *kept = &reader->attributes[event->first_attribute + (size_t)index];
            reader->current[index] = (cxml_attribute){
                reader->arena + kept->local_name, reader->arena + kept->ns, reader->arena + kept->value, kept->value_length,
            };
        }
        item->attributes = reader->current;
        item->attribute_count = event->attribute_count;
        /* fall through */
    case CXML_END_ELEMENT:
        item->local_name = reader->arena + event->local_name;
        item->ns = reader->arena + event->ns;
        break;
    case CXML_TEXT:
        item->text = reader->arena + event->text;
        item->text_length = event->text_length;
        break;
    default:
        break;
    }
    return event->kind;
}

cxml_failure cxml_reader_failure(const cxml_reader *reader) { return reader->failure; }
int cxml_reader_error_code(const cxml_reader *reader) {
    return reader->failure == CXML_NOT_WELL_FORMED ? reader->error_code : 0;
}
int cxml_reader_error_line(const cxml_reader *reader) {
    return reader->failure == CXML_NOT_WELL_FORMED ? reader->error_line : 0;
}
