/*
 * Memory order, named (as liburing's barrier.h): the loads and stores of
 * words another thread or process writes, and the fences between them,
 * over the __atomic builtins, so each says what order it needs rather
 * than casting to volatile or hiding a fence in inline asm. On x86-64
 * (TSO) the loads and the acquire fence are plain moves and no fence; on
 * aarch64 the acquire fence is a dmb ishld.
 */
#ifndef TC_BARRIER_H
#define TC_BARRIER_H

/* One load of *p, not merged with another nor repeated by the compiler;
 * no order with the accesses around it. */
#define tc_read_once(p)        __atomic_load_n((p), __ATOMIC_RELAXED)
/* One store to *p, the same. */
#define tc_write_once(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELAXED)
/* A load that later loads and stores are not moved before. */
#define tc_load_acquire(p)     __atomic_load_n((p), __ATOMIC_ACQUIRE)
/* A store that earlier loads and stores are not moved after. */
#define tc_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* Loads before it are done before the loads after it. */
#define tc_smp_rmb()           __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* Stores before it are seen before the stores after it. */
#define tc_smp_wmb()           __atomic_thread_fence(__ATOMIC_RELEASE)
/* The compiler keeps memory accesses on their side of it; the CPU may not
 * (what a signal handler or the same thread sees). */
#define tc_compiler_barrier()  __atomic_signal_fence(__ATOMIC_SEQ_CST)

#endif
