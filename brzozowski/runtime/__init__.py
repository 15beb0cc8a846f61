"""Generation: sampling parameters, the per-sequence constraint, and engine hooks (llama.cpp)."""
