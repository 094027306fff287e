// Package wasmbudget owns the loop budget: it rewrites a WebAssembly
// connector so that the host can stop it at its deadline at native speed.
// It does not merely check a module, it writes a new one: every loop
// iteration and every function entry counts down a budget kept in a new
// global, and calls the host's interrupt check (the import
// besluitbron.interrupt_check, which the sdk declares) when the budget
// runs out; the check answers a new budget, or traps the guest when its
// call's context has ended. The host function itself lives with the
// runtime (package wasmrt); this package owns the rewrite and the
// import's name and type.
//
// Instrument works in three steps: parse reads the module's sections
// (types, imports, globals), index finds the interrupt check, gives the
// budget the next global index and decodes every function body to find
// where the probes go, and emit writes the rewritten module without
// decoding anything.
//
// Why not wazero's WithCloseOnContextDone: with it, the compiled code
// leaves native code for Go at every loop header to ask whether the module
// was closed (wazero issues 2466 and 1409). Go compiled to WebAssembly
// wraps every function in a loop, so a connector pays that exit on every
// function call: a search took three to four times as long. The check
// here costs a decrement and a branch per loop iteration and function
// entry, and one exit to Go per budget. It gives the same guarantee and
// one more: a guest spinning in any loop, or in a call tree that recurses
// without looping (which checks at loop headers miss), is stopped within
// one budget of its deadline. Modules that do not import the check (not
// built with the sdk) are not rewritten; the runtime keeps
// WithCloseOnContextDone for them.
//
// Because index decodes every instruction of every function body, the
// rewrite also refuses a module whose code names the global it adds (a
// guest must not reset its own budget) or uses instructions it does not
// know (SIMD, threads, exceptions): such a module is run the slow, safe
// way.
//
// The tests hold the rewrite to three things: the rewritten module
// behaves as the original (FuzzInstrumentDifferential, on generated
// modules run on wazero's interpreter), an endless loop or recursion
// stops after exactly the budgets the check grants
// (TestRunawaysStopWithinBudget), and the bytes it writes do not change
// unnoticed (TestInstrumentOutputUnchanged).
package wasmbudget
