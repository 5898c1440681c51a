/* The C++ runtime fpforge links into C++ programs: what libstdc++ and libsupc++ would
 * supply, written as C that fpforge runs like the program's own code (so both tiers,
 * every semantics and the searches see it), compiled without debug information so it
 * never shows in reports.
 *
 * - operator new/delete in every variant clang emits (plain, array, sized, nothrow,
 *   aligned): malloc and free. Weak, so a program's own operator new wins.
 * - function-local statics: __cxa_guard_acquire/release/abort on the guard's first byte;
 *   __cxa_atexit records nothing (destructors of statics never run: a run ends at the
 *   return of the function under test).
 * - exceptions: an exception object has a 16-byte header in front of it, the typeinfo
 *   then the destructor (fpforge_exec::unwind reads it); __cxa_throw fills it and raises
 *   through __fpforge_unwind, the interpreter's unwinder; __cxa_begin_catch keeps the
 *   caught exception for __cxa_rethrow. std::terminate is the interpreter's builtin.
 * - the typeinfo kinds: the vtables of __cxxabiv1's __class_type_info,
 *   __si_class_type_info and __vmi_class_type_info, whose addresses tell the unwinder
 *   how to walk a typeinfo's base classes.
 * - <stdexcept>: std::exception, logic_error, invalid_argument, domain_error,
 *   length_error, out_of_range, runtime_error, range_error, overflow_error,
 *   underflow_error, laid out as libstdc++ does (a vtable pointer, then the message):
 *   constructors from const char*, destructors, what(), vtables and typeinfos. The
 *   message pointer is kept as given (a string literal, as in `throw
 *   std::invalid_argument("bad step")`).
 *
 * Every function here is branch-free, so none adds a branch side to a report. */

void *malloc(unsigned long size);
void free(void *block);
void __fpforge_unwind(void *exception);

#define WEAK __attribute__((weak))

/* std::nothrow, the tag `new (std::nothrow)` passes. */
const char _ZSt7nothrow = 0;

WEAK void *_Znwm(unsigned long size) { return malloc(size); }
WEAK void *_Znam(unsigned long size) { return malloc(size); }
WEAK void *_ZnwmRKSt9nothrow_t(unsigned long size, const void *tag) { return malloc(size); }
WEAK void *_ZnamRKSt9nothrow_t(unsigned long size, const void *tag) { return malloc(size); }
WEAK void *_ZnwmSt11align_val_t(unsigned long size, unsigned long align) { return malloc(size); }
WEAK void *_ZnamSt11align_val_t(unsigned long size, unsigned long align) { return malloc(size); }
WEAK void *_ZnwmSt11align_val_tRKSt9nothrow_t(unsigned long size, unsigned long align,
                                             const void *tag) {
  return malloc(size);
}
WEAK void *_ZnamSt11align_val_tRKSt9nothrow_t(unsigned long size, unsigned long align,
                                             const void *tag) {
  return malloc(size);
}
WEAK void _ZdlPv(void *p) { free(p); }
WEAK void _ZdaPv(void *p) { free(p); }
WEAK void _ZdlPvm(void *p, unsigned long size) { free(p); }
WEAK void _ZdaPvm(void *p, unsigned long size) { free(p); }
WEAK void _ZdlPvRKSt9nothrow_t(void *p, const void *tag) { free(p); }
WEAK void _ZdaPvRKSt9nothrow_t(void *p, const void *tag) { free(p); }
WEAK void _ZdlPvSt11align_val_t(void *p, unsigned long align) { free(p); }
WEAK void _ZdaPvSt11align_val_t(void *p, unsigned long align) { free(p); }
WEAK void _ZdlPvmSt11align_val_t(void *p, unsigned long size, unsigned long align) { free(p); }
WEAK void _ZdaPvmSt11align_val_t(void *p, unsigned long size, unsigned long align) { free(p); }

int __cxa_guard_acquire(long long *guard) { return *(char *)guard == 0; }
void __cxa_guard_release(long long *guard) { *(char *)guard = 1; }
void __cxa_guard_abort(long long *guard) {}
int __cxa_atexit(void (*destructor)(void *), void *object, void *dso) { return 0; }
void _ZSt9terminatev(void);
void __cxa_pure_virtual(void) { _ZSt9terminatev(); }
char __dso_handle;
int __gxx_personality_v0() { return 0; }

#define HEADER_BYTES 16

void *__cxa_allocate_exception(unsigned long size) {
  return (char *)malloc(size + HEADER_BYTES) + HEADER_BYTES;
}
void __cxa_free_exception(void *object) { free((char *)object - HEADER_BYTES); }
void __cxa_throw(void *object, void *typeinfo, void (*destructor)(void *)) {
  void **header = (void **)((char *)object - HEADER_BYTES);
  header[0] = typeinfo;
  header[1] = (void *)destructor;
  __fpforge_unwind(object);
}

/* The exceptions being handled, innermost last. */
static void *caught[64];
static int caught_count;

void *__cxa_begin_catch(void *object) {
  caught[caught_count] = object;
  caught_count = caught_count + 1;
  return object;
}
void __cxa_end_catch(void) { caught_count = caught_count - 1; }
void __cxa_rethrow(void) { __fpforge_unwind(caught[caught_count - 1]); }
void *__cxa_get_exception_ptr(void *object) { return object; }

void *_ZTVN10__cxxabiv117__class_type_infoE[4];
void *_ZTVN10__cxxabiv120__si_class_type_infoE[4];
void *_ZTVN10__cxxabiv121__vmi_class_type_infoE[4];

struct class_type_info {
  const void *vptr;
  const char *name;
};
struct si_class_type_info {
  const void *vptr;
  const char *name;
  const void *base;
};
struct std_exception {
  const void *vptr;
  const char *message;
};

const char *_ZNKSt9exception4whatEv(const struct std_exception *self) { return "std::exception"; }
const char *_ZNKSt11logic_error4whatEv(const struct std_exception *self) { return self->message; }
const char *_ZNKSt13runtime_error4whatEv(const struct std_exception *self) {
  return self->message;
}

#define DESTRUCTORS(N)                                                                     \
  void _ZN##N##D2Ev(struct std_exception *self) {}                                         \
  void _ZN##N##D1Ev(struct std_exception *self) {}                                         \
  void _ZN##N##D0Ev(struct std_exception *self) { free(self); }

#define VTABLE(N, WHAT)                                                                    \
  const void *const _ZTV##N[5] = {0, &_ZTI##N, (const void *)_ZN##N##D1Ev,                 \
                                  (const void *)_ZN##N##D0Ev, (const void *)WHAT};

DESTRUCTORS(St9exception)
const struct class_type_info _ZTISt9exception = {&_ZTVN10__cxxabiv117__class_type_infoE[2],
                                                 "St9exception"};
VTABLE(St9exception, _ZNKSt9exception4whatEv)

/* A class of <stdexcept>: N its mangled name, BASE its base's, WHAT its what(). */
#define STDEXCEPT(N, BASE, WHAT)                                                           \
  DESTRUCTORS(N)                                                                           \
  const struct si_class_type_info _ZTI##N = {&_ZTVN10__cxxabiv120__si_class_type_infoE[2], \
                                             #N, &_ZTI##BASE};                             \
  VTABLE(N, WHAT)                                                                          \
  void _ZN##N##C2EPKc(struct std_exception *self, const char *message) {                   \
    self->vptr = &_ZTV##N[2];                                                              \
    self->message = message;                                                               \
  }                                                                                        \
  void _ZN##N##C1EPKc(struct std_exception *self, const char *message) {                   \
    _ZN##N##C2EPKc(self, message);                                                         \
  }

STDEXCEPT(St11logic_error, St9exception, _ZNKSt11logic_error4whatEv)
STDEXCEPT(St16invalid_argument, St11logic_error, _ZNKSt11logic_error4whatEv)
STDEXCEPT(St12domain_error, St11logic_error, _ZNKSt11logic_error4whatEv)
STDEXCEPT(St12length_error, St11logic_error, _ZNKSt11logic_error4whatEv)
STDEXCEPT(St12out_of_range, St11logic_error, _ZNKSt11logic_error4whatEv)
STDEXCEPT(St13runtime_error, St9exception, _ZNKSt13runtime_error4whatEv)
STDEXCEPT(St11range_error, St13runtime_error, _ZNKSt13runtime_error4whatEv)
STDEXCEPT(St14overflow_error, St13runtime_error, _ZNKSt13runtime_error4whatEv)
STDEXCEPT(St15underflow_error, St13runtime_error, _ZNKSt13runtime_error4whatEv)
