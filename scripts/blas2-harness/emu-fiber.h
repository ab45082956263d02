// The context switch of the harness's CPU emulators (rank-packed-emu.h, band-smem-emu.h): one
// fiber per CUDA thread, switched by hand (x86-64 SysV: save the callee-saved registers on the
// current stack, store its pointer, load the other fiber's, restore, return into it).
#pragma once

extern "C" void emu_swap(void** save_sp, void* load_sp);
asm(R"(
.text
.globl emu_swap
.type emu_swap,@function
emu_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
.size emu_swap,.-emu_swap
)");
