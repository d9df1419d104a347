"""Benchmarks: latency, size, memory, CPU time and (where counters exist) energy; teacher vs student."""
