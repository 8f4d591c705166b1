; ModuleID = 'dyn.cc'
source_filename = "dyn.cc"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$_ZN2ns4pickEj = comdat nodeduplicate

$_GLOBAL__sub_I_dyn.cc = comdat nodeduplicate

$sancov.module_ctor_trace_pc_guard = comdat any

$sancov.module_ctor_8bit_counters = comdat any

$sancov.module_ctor_bool_flag = comdat any

$asan.module_ctor = comdat any

$asan.module_dtor = comdat any

$dynamic_value = comdat any

$_ZN2ns7weightsE = comdat any

$.str.046767cabca931c152f6a67b1495d674 = comdat any

@dynamic_value = dso_local global { i32, [28 x i8] } zeroinitializer, sanitize_address_dyninit, comdat, align 32
@_ZN2ns7weightsE = dso_local global { [5 x i64], [56 x i8] } { [5 x i64] [i64 5, i64 4, i64 3, i64 2, i64 1], [56 x i8] zeroinitializer }, comdat, align 32
@.str = internal constant { [3 x i8], [29 x i8] } { [3 x i8] c"xx\00", [29 x i8] zeroinitializer }, comdat($.str.046767cabca931c152f6a67b1495d674), align 32
@__sancov_gen_ = private global [3 x i32] zeroinitializer, section "__sancov_guards", comdat($_ZN2ns4pickEj), align 4
@__sancov_gen_.1 = private global [3 x i8] zeroinitializer, section "__sancov_cntrs", comdat($_ZN2ns4pickEj), align 1
@__sancov_gen_.2 = private global [3 x i1] zeroinitializer, section "__sancov_bools", comdat($_ZN2ns4pickEj), align 1
@__sancov_gen_.3 = private constant [6 x ptr] [ptr @_ZN2ns4pickEj, ptr inttoptr (i64 1 to ptr), ptr blockaddress(@_ZN2ns4pickEj, %cond.true), ptr null, ptr blockaddress(@_ZN2ns4pickEj, %cond.false), ptr null], section "__sancov_pcs", comdat($_ZN2ns4pickEj), align 8
@__sancov_gen_.4 = private global [1 x i32] zeroinitializer, section "__sancov_guards", comdat($_GLOBAL__sub_I_dyn.cc), align 4
@__sancov_gen_.5 = private global [1 x i8] zeroinitializer, section "__sancov_cntrs", comdat($_GLOBAL__sub_I_dyn.cc), align 1
@__sancov_gen_.6 = private global [1 x i1] zeroinitializer, section "__sancov_bools", comdat($_GLOBAL__sub_I_dyn.cc), align 1
@__sancov_gen_.7 = private constant [2 x ptr] [ptr @_GLOBAL__sub_I_dyn.cc, ptr inttoptr (i64 1 to ptr)], section "__sancov_pcs", comdat($_GLOBAL__sub_I_dyn.cc), align 8
@__start___sancov_guards = extern_weak hidden global i32
@__stop___sancov_guards = extern_weak hidden global i32
@__start___sancov_cntrs = extern_weak hidden global i8
@__stop___sancov_cntrs = extern_weak hidden global i8
@__start___sancov_bools = extern_weak hidden global i1
@__stop___sancov_bools = extern_weak hidden global i1
@__start___sancov_pcs = extern_weak hidden global i64
@__stop___sancov_pcs = extern_weak hidden global i64
@___asan_gen_global = private unnamed_addr constant [14 x i8] c"dynamic_value\00", align 1
@__odr_asan_gen_dynamic_value = global i8 0, align 1
@___asan_gen_module = private constant [7 x i8] c"dyn.cc\00", align 1
@___asan_gen_global.8 = private unnamed_addr constant [12 x i8] c"ns::weights\00", align 1
@__odr_asan_gen__ZN2ns7weightsE = global i8 0, align 1
@___asan_gen_global.9 = private unnamed_addr constant [5 x i8] c".str\00", align 1
@__asan_global_dynamic_value = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @0 to i64), i64 4, i64 32, i64 ptrtoint (ptr @___asan_gen_global to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 1, i64 0, i64 ptrtoint (ptr @__odr_asan_gen_dynamic_value to i64) }, section "asan_globals", comdat($dynamic_value), !associated !0
@__asan_global__ZN2ns7weightsE = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @1 to i64), i64 40, i64 96, i64 ptrtoint (ptr @___asan_gen_global.8 to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 ptrtoint (ptr @__odr_asan_gen__ZN2ns7weightsE to i64) }, section "asan_globals", comdat($_ZN2ns7weightsE), !associated !1
@__asan_global_.str = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @2 to i64), i64 3, i64 32, i64 ptrtoint (ptr @___asan_gen_global.9 to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 -1 }, section "asan_globals", comdat($.str.046767cabca931c152f6a67b1495d674), !associated !2
@llvm.compiler.used = appending global [14 x ptr] [ptr @__sancov_gen_, ptr @__sancov_gen_.1, ptr @__sancov_gen_.2, ptr @__sancov_gen_.3, ptr @__sancov_gen_.4, ptr @__sancov_gen_.5, ptr @__sancov_gen_.6, ptr @__sancov_gen_.7, ptr @dynamic_value, ptr @_ZN2ns7weightsE, ptr @.str, ptr @__asan_global_dynamic_value, ptr @__asan_global__ZN2ns7weightsE, ptr @__asan_global_.str], section "llvm.metadata"
@___asan_globals_registered = common hidden global i64 0
@__start_asan_globals = extern_weak hidden global i64
@__stop_asan_globals = extern_weak hidden global i64
@llvm.used = appending global [5 x ptr] [ptr @sancov.module_ctor_trace_pc_guard, ptr @sancov.module_ctor_8bit_counters, ptr @sancov.module_ctor_bool_flag, ptr @asan.module_ctor, ptr @asan.module_dtor], section "llvm.metadata"
@llvm.global_ctors = appending global [5 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @_GLOBAL__sub_I_dyn.cc, ptr null }, { i32, ptr, ptr } { i32 2, ptr @sancov.module_ctor_trace_pc_guard, ptr @sancov.module_ctor_trace_pc_guard }, { i32, ptr, ptr } { i32 2, ptr @sancov.module_ctor_8bit_counters, ptr @sancov.module_ctor_8bit_counters }, { i32, ptr, ptr } { i32 2, ptr @sancov.module_ctor_bool_flag, ptr @sancov.module_ctor_bool_flag }, { i32, ptr, ptr } { i32 1, ptr @asan.module_ctor, ptr @asan.module_ctor }]
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @asan.module_dtor, ptr @asan.module_dtor }]

@0 = private alias { i32, [28 x i8] }, ptr @dynamic_value
@1 = private alias { [5 x i64], [56 x i8] }, ptr @_ZN2ns7weightsE
@2 = private alias { [3 x i8], [29 x i8] }, ptr @.str

; Function Attrs: mustprogress nofree norecurse nosync nounwind sanitize_address willreturn memory(read, argmem: none, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
define dso_local noundef i64 @_ZN2ns4pickEj(i32 noundef %i) local_unnamed_addr #0 comdat {
entry:
  call void @__sanitizer_cov_trace_pc_guard(ptr @__sancov_gen_) #4
  %0 = load i8, ptr @__sancov_gen_.1, align 1, !nosanitize !13
  %1 = add i8 %0, 1
  store i8 %1, ptr @__sancov_gen_.1, align 1, !nosanitize !13
  %2 = load i1, ptr @__sancov_gen_.2, align 1, !nosanitize !13
  %3 = icmp eq i1 %2, false
  br i1 %3, label %4, label %5, !prof !14

4:                                                ; preds = %entry
  store i1 true, ptr @__sancov_gen_.2, align 1, !nosanitize !13
  br label %5

5:                                                ; preds = %entry, %4
  %cmp = icmp ult i32 %i, 5
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %5
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([3 x i32], ptr @__sancov_gen_, i64 0, i64 1)) #4
  %6 = load i8, ptr getelementptr ([3 x i8], ptr @__sancov_gen_.1, i64 0, i64 1), align 1, !nosanitize !13
  %7 = add i8 %6, 1
  store i8 %7, ptr getelementptr ([3 x i8], ptr @__sancov_gen_.1, i64 0, i64 1), align 1, !nosanitize !13
  %8 = load i1, ptr getelementptr ([3 x i1], ptr @__sancov_gen_.2, i64 0, i64 1), align 1, !nosanitize !13
  %9 = icmp eq i1 %8, false
  br i1 %9, label %10, label %11, !prof !14

10:                                               ; preds = %cond.true
  store i1 true, ptr getelementptr ([3 x i1], ptr @__sancov_gen_.2, i64 0, i64 1), align 1, !nosanitize !13
  br label %11

11:                                               ; preds = %cond.true, %10
  %idxprom = zext nneg i32 %i to i64
  %arrayidx = getelementptr inbounds nuw i64, ptr @_ZN2ns7weightsE, i64 %idxprom
  %12 = ptrtoint ptr %arrayidx to i64
  %13 = lshr i64 %12, 3
  %14 = add i64 %13, 2147450880
  %15 = inttoptr i64 %14 to ptr
  %16 = load i8, ptr %15, align 1
  %17 = icmp ne i8 %16, 0
  br i1 %17, label %18, label %19

18:                                               ; preds = %11
  call void @__asan_report_load8(i64 %12) #4
  unreachable

19:                                               ; preds = %11
  %20 = load i64, ptr %arrayidx, align 8, !tbaa !15
  br label %cond.end

cond.false:                                       ; preds = %5
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([3 x i32], ptr @__sancov_gen_, i64 0, i64 2)) #4
  %21 = load i8, ptr getelementptr ([3 x i8], ptr @__sancov_gen_.1, i64 0, i64 2), align 1, !nosanitize !13
  %22 = add i8 %21, 1
  store i8 %22, ptr getelementptr ([3 x i8], ptr @__sancov_gen_.1, i64 0, i64 2), align 1, !nosanitize !13
  %23 = load i1, ptr getelementptr ([3 x i1], ptr @__sancov_gen_.2, i64 0, i64 2), align 1, !nosanitize !13
  %24 = icmp eq i1 %23, false
  br i1 %24, label %25, label %26, !prof !14

25:                                               ; preds = %cond.false
  store i1 true, ptr getelementptr ([3 x i1], ptr @__sancov_gen_.2, i64 0, i64 2), align 1, !nosanitize !13
  br label %26

26:                                               ; preds = %cond.false, %25
  %27 = lshr i64 ptrtoint (ptr @dynamic_value to i64), 3
  %28 = add i64 %27, 2147450880
  %29 = inttoptr i64 %28 to ptr
  %30 = load i8, ptr %29, align 1
  %31 = icmp ne i8 %30, 0
  br i1 %31, label %32, label %38, !prof !14

32:                                               ; preds = %26
  %33 = and i64 ptrtoint (ptr @dynamic_value to i64), 7
  %34 = add i64 %33, 3
  %35 = trunc i64 %34 to i8
  %36 = icmp sge i8 %35, %30
  br i1 %36, label %37, label %38

37:                                               ; preds = %32
  call void @__asan_report_load4(i64 ptrtoint (ptr @dynamic_value to i64)) #4
  unreachable

38:                                               ; preds = %32, %26
  %39 = load i32, ptr @dynamic_value, align 4, !tbaa !9
  %conv = sext i32 %39 to i64
  br label %cond.end

cond.end:                                         ; preds = %38, %19
  %cond = phi i64 [ %20, %19 ], [ %conv, %38 ]
  ret i64 %cond
}

declare i32 @process(ptr noundef) local_unnamed_addr #1

; Function Attrs: sanitize_address uwtable
define internal void @_GLOBAL__sub_I_dyn.cc() #2 section ".text.startup" comdat {
entry:
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_trace_pc_guard(ptr @__sancov_gen_.4) #4
  %0 = load i8, ptr @__sancov_gen_.5, align 1, !nosanitize !13
  %1 = add i8 %0, 1
  store i8 %1, ptr @__sancov_gen_.5, align 1, !nosanitize !13
  %2 = load i1, ptr @__sancov_gen_.6, align 1, !nosanitize !13
  %3 = icmp eq i1 %2, false
  br i1 %3, label %4, label %5, !prof !14

4:                                                ; preds = %entry
  store i1 true, ptr @__sancov_gen_.6, align 1, !nosanitize !13
  br label %5

5:                                                ; preds = %entry, %4
  %call.i.i = tail call i32 @process(ptr noundef nonnull @.str)
  %add.i.i = add nsw i32 %call.i.i, 3
  %6 = lshr i64 ptrtoint (ptr @dynamic_value to i64), 3
  %7 = add i64 %6, 2147450880
  %8 = inttoptr i64 %7 to ptr
  %9 = load i8, ptr %8, align 1
  %10 = icmp ne i8 %9, 0
  br i1 %10, label %11, label %17, !prof !14

11:                                               ; preds = %5
  %12 = and i64 ptrtoint (ptr @dynamic_value to i64), 7
  %13 = add i64 %12, 3
  %14 = trunc i64 %13 to i8
  %15 = icmp sge i8 %14, %9
  br i1 %15, label %16, label %17

16:                                               ; preds = %11
  call void @__asan_report_store4(i64 ptrtoint (ptr @dynamic_value to i64)) #4
  unreachable

17:                                               ; preds = %11, %5
  store i32 %add.i.i, ptr @dynamic_value, align 4, !tbaa !9
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_trace_pc_guard(ptr)

declare void @__sanitizer_cov_trace_pc_guard_init(ptr, ptr)

; Function Attrs: nounwind uwtable
define internal void @sancov.module_ctor_trace_pc_guard() #3 comdat {
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_trace_pc_guard_init(ptr @__start___sancov_guards, ptr @__stop___sancov_guards)
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_8bit_counters_init(ptr, ptr)

; Function Attrs: nounwind uwtable
define internal void @sancov.module_ctor_8bit_counters() #3 comdat {
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_8bit_counters_init(ptr @__start___sancov_cntrs, ptr @__stop___sancov_cntrs)
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_bool_flag_init(ptr, ptr)

; Function Attrs: nounwind uwtable
define internal void @sancov.module_ctor_bool_flag() #3 comdat {
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_bool_flag_init(ptr @__start___sancov_bools, ptr @__stop___sancov_bools)
  call void @__sanitizer_cov_pcs_init(ptr @__start___sancov_pcs, ptr @__stop___sancov_pcs)
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_pcs_init(ptr, ptr)

declare void @__asan_report_load4(i64)

declare void @__asan_report_load8(i64)

declare void @__asan_report_store4(i64)

declare void @__asan_before_dynamic_init(i64)

declare void @__asan_after_dynamic_init()

declare void @__asan_register_elf_globals(i64, i64, i64)

declare void @__asan_unregister_elf_globals(i64, i64, i64)

declare void @__asan_init()

; Function Attrs: nounwind uwtable
define internal void @asan.module_ctor() #3 comdat {
  call void @__asan_init()
  call void @__asan_version_mismatch_check_v8()
  call void @__asan_register_elf_globals(i64 ptrtoint (ptr @___asan_globals_registered to i64), i64 ptrtoint (ptr @__start_asan_globals to i64), i64 ptrtoint (ptr @__stop_asan_globals to i64))
  ret void
}

declare void @__asan_version_mismatch_check_v8()

; Function Attrs: nounwind uwtable
define internal void @asan.module_dtor() #3 comdat {
  call void @__asan_unregister_elf_globals(i64 ptrtoint (ptr @___asan_globals_registered to i64), i64 ptrtoint (ptr @__start_asan_globals to i64), i64 ptrtoint (ptr @__stop_asan_globals to i64))
  ret void
}

attributes #0 = { mustprogress nofree norecurse nosync nounwind sanitize_address willreturn memory(read, argmem: none, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { sanitize_address uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind uwtable "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" }
attributes #4 = { nomerge }

!llvm.module.flags = !{!3, !4, !5, !6, !7}
!llvm.ident = !{!8}
!llvm.errno.tbaa = !{!9}

!0 = !{ptr @dynamic_value}
!1 = !{ptr @_ZN2ns7weightsE}
!2 = !{ptr @.str}
!3 = !{i32 1, !"wchar_size", i32 4}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = !{i32 7, !"PIE Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 2}
!7 = !{i32 4, !"nosanitize_address", i32 1}
!8 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C++ TBAA"}
!13 = !{}
!14 = !{!"branch_weights", i32 1, i32 1048575}
!15 = !{!16, !16, i64 0}
!16 = !{!"long", !11, i64 0}
