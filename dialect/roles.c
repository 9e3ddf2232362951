/*===- roles.c - what an @main argument holds, as import says ----------===*/
#include "thunky-c/dialect/Roles.h"

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool thunkyIsFunction(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length == 9 && memcmp(name.data, "func.func", 9) == 0;
}

MlirAttribute thunkyArgumentAttribute(MlirValue v, const char *name) {
  if (!mlirValueIsABlockArgument(v))
    return mlirAttributeGetNull();
  MlirOperation func = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  MlirAttribute argAttrs =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(argAttrs) || !mlirAttributeIsAArray(argAttrs) ||
      mlirBlockArgumentGetArgNumber(v) >= mlirArrayAttrGetNumElements(argAttrs))
    return mlirAttributeGetNull();
  return mlirDictionaryAttrGetElementByName(
      mlirArrayAttrGetElement(argAttrs, mlirBlockArgumentGetArgNumber(v)),
      mlirStringRefCreateFromCString(name));
}

typedef struct Cursor {
  const char *at, *end;
} Cursor;

static bool take(Cursor *c, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(c->end - c->at) < n || memcmp(c->at, word, n) != 0)
    return false;
  c->at += n;
  return true;
}

static bool number(Cursor *c, int64_t *out) {
  if (c->at == c->end || *c->at < '0' || *c->at > '9')
    return false;
  int64_t v = 0;
  for (; c->at < c->end && *c->at >= '0' && *c->at <= '9'; c->at++) {
    if (v > (INT64_MAX - 9) / 10)
      return false;
    v = v * 10 + (*c->at - '0');
  }
  *out = v;
  return true;
}

static bool outputIndex(Cursor *c, ThunkyAllocation *a) {
  if (!take(c, "{"))
    return number(c, &a->outputIndex[0]) && (a->outputDepth = 1);
  if (take(c, "}"))
    return true;
  do
    if (a->outputDepth == THUNKY_MAX_OUTPUT_DEPTH ||
        !number(c, &a->outputIndex[a->outputDepth++]))
      return false;
  while (take(c, ", "));
  return take(c, "}");
}

bool thunkyRoleTextParse(MlirStringRef text, ThunkyAllocation *a) {
  Cursor c = {text.data, text.data + text.length};
  if (take(&c, "thread-local scratch"))
    a->flags |= THUNKY_ALLOCATION_SCRATCH | THUNKY_ALLOCATION_THREAD_LOCAL;
  else if (take(&c, "scratch"))
    a->flags |= THUNKY_ALLOCATION_SCRATCH;
  else {
    if (take(&c, "parameter ")) {
      if (!number(&c, &a->parameter) || (c.at != c.end && !take(&c, ", ")))
        return false;
    }
    if (take(&c, "output ")) {
      if (!outputIndex(&c, a))
        return false;
      a->flags |= THUNKY_ALLOCATION_OUTPUT;
    }
  }
  return c.at == c.end && thunkyAllocationRole(a) != THUNKY_ROLE_NONE;
}

/* The allocation attribute of `v`: in arg_attrs for an argument, on the op
 * for a constant. */
static MlirAttribute allocationAttr(MlirValue v) {
  if (mlirValueIsABlockArgument(v))
    return thunkyArgumentAttribute(v, "thunky.allocation");
  MlirOperation op = mlirOpResultGetOwner(v);
  return thunkyOpGetKind(op) == THUNKY_OP_CONSTANT
             ? mlirOperationGetDiscardableAttributeByName(
                   op, mlirStringRefCreateFromCString("thunky.allocation"))
             : mlirAttributeGetNull();
}

/* The older forms; *unreadable when a role string says none of the roles. */
static bool olderForms(MlirValue v, MlirAttribute allocation, ThunkyAllocation *out,
                       bool *unreadable) {
  MlirAttribute role = thunkyArgumentAttribute(v, "thunky.role");
  MlirAttribute shape = thunkyArgumentAttribute(v, "thunky.shape");
  bool any = false;
  if (!mlirAttributeIsNull(allocation) && mlirAttributeIsADictionary(allocation)) {
    MlirAttribute index =
        mlirDictionaryAttrGetElementByName(allocation, mlirStringRefCreateFromCString("index"));
    out->index = !mlirAttributeIsNull(index) && mlirAttributeIsAInteger(index)
                     ? mlirIntegerAttrGetValueInt(index)
                     : 0;
    any = true;
  }
  if (!mlirAttributeIsNull(role)) {
    ThunkyAllocation parsed = *out;
    *unreadable = !mlirAttributeIsAString(role) ||
                  !thunkyRoleTextParse(mlirStringAttrGetValue(role), &parsed);
    if (!*unreadable)
      *out = parsed;
    any = true;
  }
  if (!mlirAttributeIsNull(shape) && mlirAttributeIsAType(shape)) {
    out->shape = mlirTypeAttrGetValue(shape);
    any = true;
  }
  return any;
}

static bool describe(MlirValue v, ThunkyAllocation *out, bool *unreadable) {
  MlirAttribute allocation = allocationAttr(v);
  *out = thunkyAllocationEmpty();
  *unreadable = false;
  if (!mlirAttributeIsNull(allocation) && thunkyAttributeIsAAllocation(allocation)) {
    thunkyAllocationAttrGetValue(allocation, out);
    return true;
  }
  return olderForms(v, allocation, out, unreadable);
}

bool thunkyValueGetAllocation(MlirValue v, ThunkyAllocation *out) {
  bool unreadable;
  return describe(v, out, &unreadable);
}

ThunkyRole thunkyAllocationRole(const ThunkyAllocation *a) {
  bool output = a->flags & THUNKY_ALLOCATION_OUTPUT;
  if (a->parameter >= 0)
    return output ? THUNKY_ROLE_PARAMETER_OUTPUT : THUNKY_ROLE_PARAMETER;
  if (output)
    return THUNKY_ROLE_OUTPUT;
  if (a->flags & THUNKY_ALLOCATION_SCRATCH)
    return a->flags & THUNKY_ALLOCATION_THREAD_LOCAL ? THUNKY_ROLE_THREAD_LOCAL_SCRATCH
                                                      : THUNKY_ROLE_SCRATCH;
  return THUNKY_ROLE_NONE;
}

/* The text thunkyValueGetRoleText writes, cut short at its end. */
typedef struct RoleText {
  char *text;
  size_t size, used; /* size > 0; text[used] is the NUL */
} RoleText;

static void put(RoleText *r, const char *s) {
  for (; *s && r->used + 1 < r->size; ++s)
    r->text[r->used++] = *s;
  r->text[r->used] = 0;
}

static void putNumber(RoleText *r, int64_t n) {
  char digits[24];
  snprintf(digits, sizeof digits, "%" PRId64, n);
  put(r, digits);
}

bool thunkyValueGetRoleText(MlirValue v, char *text, size_t size) {
  ThunkyAllocation a;
  bool unreadable;
  if (!size)
    return false;
  RoleText r = {text, size, 0};
  text[0] = 0;
  if (!describe(v, &a, &unreadable))
    return false;
  if (unreadable) {
    MlirAttribute role = thunkyArgumentAttribute(v, "thunky.role");
    MlirStringRef s = mlirAttributeIsAString(role) ? mlirStringAttrGetValue(role)
                                                    : mlirStringRefCreate("", 0);
    for (size_t i = 0; i < s.length && r.used + 1 < size; ++i)
      text[r.used++] = s.data[i];
    text[r.used] = 0;
    return true;
  }
  ThunkyRole role = thunkyAllocationRole(&a);
  if (role == THUNKY_ROLE_SCRATCH || role == THUNKY_ROLE_THREAD_LOCAL_SCRATCH)
    put(&r, role == THUNKY_ROLE_SCRATCH ? "scratch" : "thread-local scratch");
  if (a.parameter >= 0)
    put(&r, "parameter "), putNumber(&r, a.parameter);
  if (a.flags & THUNKY_ALLOCATION_OUTPUT) {
    put(&r, a.parameter >= 0 ? ", output {" : "output {");
    for (size_t i = 0; i < a.outputDepth; ++i)
      put(&r, i ? ", " : ""), putNumber(&r, a.outputIndex[i]);
    put(&r, "}");
  }
  return role != THUNKY_ROLE_NONE;
}

ThunkyRole thunkyArgumentRole(MlirValue v) {
  ThunkyAllocation a;
  bool unreadable;
  if (!mlirValueIsABlockArgument(v) || !describe(v, &a, &unreadable))
    return THUNKY_ROLE_NONE;
  return unreadable ? THUNKY_ROLE_OTHER : thunkyAllocationRole(&a);
}

bool thunkyIsScratchArgument(MlirValue v) {
  ThunkyRole role = thunkyArgumentRole(v);
  return role == THUNKY_ROLE_SCRATCH || role == THUNKY_ROLE_THREAD_LOCAL_SCRATCH;
}
