// libxml2's parser headers, for Sources/CXML's C alone: no Swift target
// imports this module (CXML's own header names no libxml2 type).
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/entities.h>
#include <libxml/xmlerror.h>
