# Included by scripts/llama-server's build at ggml's project() call: the
# tensor library does the model's arithmetic, so it keeps -O3 while the rest
# of llama.cpp builds at -O1.
set(CMAKE_C_FLAGS_RELEASE "-O3 -DNDEBUG")
set(CMAKE_CXX_FLAGS_RELEASE "-O3 -DNDEBUG")
