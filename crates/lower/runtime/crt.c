/* The C library functions fpforge links into every program that uses them and does not
 * define them, written as C that fpforge runs like the program's own code (both tiers,
 * every semantics and the searches see it, and a comparator passed to qsort runs as the
 * program's code), compiled without debug information. Linked with --only-needed, so a
 * program that calls none of them gets none; weak, so a program's own definitions win.
 *
 * - div, ldiv, lldiv: C's truncating quotient and remainder, returned as the ABI
 *   returns div_t (both in one register) and ldiv_t/lldiv_t (two).
 * - qsort: glibc's algorithm while memory allows, a top-down merge sort (stable), with
 *   its split and its merge rule, so the result is glibc's even for a comparator that
 *   is no order.
 * - bsearch: the binary search over [lower, upper) that glibc's bsearch is, so with
 *   equal keys it returns the element glibc returns.
 *
 * Unlike the C++ runtime, qsort and bsearch branch: their sides belong to these
 * functions, which reports of the program's functions never include. */

#define WEAK __attribute__((weak))

typedef unsigned long size_t;
typedef int (*comparator)(const void *, const void *);

void *malloc(size_t size);
void free(void *block);

typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
typedef struct { long long quot; long long rem; } lldiv_t;

WEAK div_t div(int num, int den) { div_t r = {num / den, num % den}; return r; }
WEAK ldiv_t ldiv(long num, long den) { ldiv_t r = {num / den, num % den}; return r; }
WEAK lldiv_t lldiv(long long num, long long den) { lldiv_t r = {num / den, num % den}; return r; }

static void copy_bytes(char *to, const char *from, size_t n) {
  for (size_t i = 0; i < n; i++)
    to[i] = from[i];
}

/* Sorts the `count` elements at `base` through `scratch`, as glibc's merge sort does:
 * the first count/2 elements, the rest, then a merge that takes the left element unless
 * the comparator, asked (left, right), says it is greater. So even a comparator that is
 * no order (NaN keys) sees the calls and gives the result it gives natively. */
static void merge_sort(char *base, char *scratch, size_t count, size_t size, comparator cmp) {
  if (count < 2)
    return;
  size_t left = count / 2, right = count - left;
  char *b1 = base, *b2 = base + left * size, *out = scratch;
  merge_sort(b1, scratch, left, size, cmp);
  merge_sort(b2, scratch, right, size, cmp);
  while (left > 0 && right > 0) {
    if (cmp(b1, b2) <= 0) {
      copy_bytes(out, b1, size);
      b1 += size;
      left--;
    } else {
      copy_bytes(out, b2, size);
      b2 += size;
      right--;
    }
    out += size;
  }
  /* What is left of the right run is in place already. */
  copy_bytes(out, b1, left * size);
  copy_bytes(base, scratch, (count - right) * size);
}

WEAK void qsort(void *base, size_t count, size_t size, comparator cmp) {
  if (count < 2 || size == 0)
    return;
  char *scratch = malloc(count * size);
  merge_sort(base, scratch, count, size, cmp);
  free(scratch);
}

WEAK void *bsearch(const void *key, const void *base, size_t count, size_t size,
                   comparator cmp) {
  size_t lower = 0, upper = count;
  while (lower < upper) {
    size_t middle = (lower + upper) / 2;
    const char *element = (const char *)base + middle * size;
    int order = cmp(key, element);
    if (order < 0)
      upper = middle;
    else if (order > 0)
      lower = middle + 1;
    else
      return (void *)element;
  }
  return 0;
}
