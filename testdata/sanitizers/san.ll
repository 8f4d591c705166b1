; ModuleID = 'san.c'
source_filename = "san.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$process = comdat nodeduplicate

$main = comdat nodeduplicate

$sancov.module_ctor_trace_pc_guard = comdat any

$sancov.module_ctor_8bit_counters = comdat any

$sancov.module_ctor_bool_flag = comdat any

$asan.module_ctor = comdat any

$asan.module_dtor = comdat any

$table = comdat any

$.str.fdd831f42ee13cc0b7db21c259d6325e = comdat any

$.str.1.fdd831f42ee13cc0b7db21c259d6325e = comdat any

$names = comdat any

$counter = comdat any

@table = dso_local global { <{ i32, i32, i32, [13 x i32] }>, [32 x i8] } { <{ i32, i32, i32, [13 x i32] }> <{ i32 1, i32 2, i32 3, [13 x i32] zeroinitializer }>, [32 x i8] zeroinitializer }, comdat, align 32
@.str = internal constant { [2 x i8], [30 x i8] } { [2 x i8] c"a\00", [30 x i8] zeroinitializer }, comdat($.str.fdd831f42ee13cc0b7db21c259d6325e), align 32
@.str.1 = internal constant { [2 x i8], [30 x i8] } { [2 x i8] c"b\00", [30 x i8] zeroinitializer }, comdat($.str.1.fdd831f42ee13cc0b7db21c259d6325e), align 32
@names = dso_local global { [2 x ptr], [16 x i8] } { [2 x ptr] [ptr @.str, ptr @.str.1], [16 x i8] zeroinitializer }, comdat, align 32
@counter = dso_local global { i32, [28 x i8] } zeroinitializer, comdat, align 32
@__sancov_gen_ = private global [7 x i32] zeroinitializer, section "__sancov_guards", comdat($process), align 4
@__sancov_gen_.2 = private global [7 x i8] zeroinitializer, section "__sancov_cntrs", comdat($process), align 1
@__sancov_gen_.3 = private global [7 x i1] zeroinitializer, section "__sancov_bools", comdat($process), align 1
@__sancov_gen_.4 = private constant [14 x ptr] [ptr @process, ptr inttoptr (i64 1 to ptr), ptr blockaddress(@process, %entry.for.cond.cleanup_crit_edge), ptr null, ptr blockaddress(@process, %for.body.for.inc_crit_edge), ptr null, ptr blockaddress(@process, %cond.true.i), ptr null, ptr blockaddress(@process, %cond.false.i), ptr null, ptr blockaddress(@process, %for.inc.for.body_crit_edge), ptr null, ptr blockaddress(@process, %for.inc.for.cond.cleanup_crit_edge), ptr null], section "__sancov_pcs", comdat($process), align 8
@__sancov_gen_.5 = private global [7 x i32] zeroinitializer, section "__sancov_guards", comdat($main), align 4
@__sancov_gen_.6 = private global [7 x i8] zeroinitializer, section "__sancov_cntrs", comdat($main), align 1
@__sancov_gen_.7 = private global [7 x i1] zeroinitializer, section "__sancov_bools", comdat($main), align 1
@__sancov_gen_.8 = private constant [14 x ptr] [ptr @main, ptr inttoptr (i64 1 to ptr), ptr blockaddress(@main, %entry.process.exit_crit_edge), ptr null, ptr blockaddress(@main, %for.body.i.for.inc.i_crit_edge), ptr null, ptr blockaddress(@main, %cond.true.i.i), ptr null, ptr blockaddress(@main, %cond.false.i.i), ptr null, ptr blockaddress(@main, %for.inc.i.for.body.i_crit_edge), ptr null, ptr blockaddress(@main, %for.inc.i.process.exit_crit_edge), ptr null], section "__sancov_pcs", comdat($main), align 8
@__start___sancov_guards = extern_weak hidden global i32
@__stop___sancov_guards = extern_weak hidden global i32
@__start___sancov_cntrs = extern_weak hidden global i8
@__stop___sancov_cntrs = extern_weak hidden global i8
@__start___sancov_bools = extern_weak hidden global i1
@__stop___sancov_bools = extern_weak hidden global i1
@__start___sancov_pcs = extern_weak hidden global i64
@__stop___sancov_pcs = extern_weak hidden global i64
@___asan_gen_global = private unnamed_addr constant [6 x i8] c"table\00", align 1
@__odr_asan_gen_table = global i8 0, align 1
@___asan_gen_module = private constant [6 x i8] c"san.c\00", align 1
@___asan_gen_global.9 = private unnamed_addr constant [5 x i8] c".str\00", align 1
@___asan_gen_global.10 = private unnamed_addr constant [7 x i8] c".str.1\00", align 1
@___asan_gen_global.11 = private unnamed_addr constant [6 x i8] c"names\00", align 1
@__odr_asan_gen_names = global i8 0, align 1
@___asan_gen_global.12 = private unnamed_addr constant [8 x i8] c"counter\00", align 1
@__odr_asan_gen_counter = global i8 0, align 1
@__asan_global_table = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @0 to i64), i64 64, i64 96, i64 ptrtoint (ptr @___asan_gen_global to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 ptrtoint (ptr @__odr_asan_gen_table to i64) }, section "asan_globals", comdat($table), !associated !0
@__asan_global_.str = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @1 to i64), i64 2, i64 32, i64 ptrtoint (ptr @___asan_gen_global.9 to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 -1 }, section "asan_globals", comdat($.str.fdd831f42ee13cc0b7db21c259d6325e), !associated !1
@__asan_global_.str.1 = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @2 to i64), i64 2, i64 32, i64 ptrtoint (ptr @___asan_gen_global.10 to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 -1 }, section "asan_globals", comdat($.str.1.fdd831f42ee13cc0b7db21c259d6325e), !associated !2
@__asan_global_names = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @3 to i64), i64 16, i64 32, i64 ptrtoint (ptr @___asan_gen_global.11 to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 ptrtoint (ptr @__odr_asan_gen_names to i64) }, section "asan_globals", comdat($names), !associated !3
@__asan_global_counter = private global { i64, i64, i64, i64, i64, i64, i64, i64 } { i64 ptrtoint (ptr @4 to i64), i64 4, i64 32, i64 ptrtoint (ptr @___asan_gen_global.12 to i64), i64 ptrtoint (ptr @___asan_gen_module to i64), i64 0, i64 0, i64 ptrtoint (ptr @__odr_asan_gen_counter to i64) }, section "asan_globals", comdat($counter), !associated !4
@llvm.compiler.used = appending global [18 x ptr] [ptr @__sancov_gen_, ptr @__sancov_gen_.2, ptr @__sancov_gen_.3, ptr @__sancov_gen_.4, ptr @__sancov_gen_.5, ptr @__sancov_gen_.6, ptr @__sancov_gen_.7, ptr @__sancov_gen_.8, ptr @table, ptr @.str, ptr @.str.1, ptr @names, ptr @counter, ptr @__asan_global_table, ptr @__asan_global_.str, ptr @__asan_global_.str.1, ptr @__asan_global_names, ptr @__asan_global_counter], section "llvm.metadata"
@___asan_globals_registered = common hidden global i64 0
@__start_asan_globals = extern_weak hidden global i64
@__stop_asan_globals = extern_weak hidden global i64
@llvm.used = appending global [5 x ptr] [ptr @sancov.module_ctor_trace_pc_guard, ptr @sancov.module_ctor_8bit_counters, ptr @sancov.module_ctor_bool_flag, ptr @asan.module_ctor, ptr @asan.module_dtor], section "llvm.metadata"
@llvm.global_ctors = appending global [4 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 2, ptr @sancov.module_ctor_trace_pc_guard, ptr @sancov.module_ctor_trace_pc_guard }, { i32, ptr, ptr } { i32 2, ptr @sancov.module_ctor_8bit_counters, ptr @sancov.module_ctor_8bit_counters }, { i32, ptr, ptr } { i32 2, ptr @sancov.module_ctor_bool_flag, ptr @sancov.module_ctor_bool_flag }, { i32, ptr, ptr } { i32 1, ptr @asan.module_ctor, ptr @asan.module_ctor }]
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @asan.module_dtor, ptr @asan.module_dtor }]

@0 = private alias { <{ i32, i32, i32, [13 x i32] }>, [32 x i8] }, ptr @table
@1 = private alias { [2 x i8], [30 x i8] }, ptr @.str
@2 = private alias { [2 x i8], [30 x i8] }, ptr @.str.1
@3 = private alias { [2 x ptr], [16 x i8] }, ptr @names
@4 = private alias { i32, [28 x i8] }, ptr @counter

; Function Attrs: nofree norecurse nounwind sanitize_address memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
define dso_local range(i32 -2147483544, -2147483648) i32 @process(ptr noundef readonly captures(none) %s) local_unnamed_addr #0 comdat {
entry:
  call void @__sanitizer_cov_trace_pc_guard(ptr @__sancov_gen_) #3
  %0 = load i8, ptr @__sancov_gen_.2, align 1, !nosanitize !15
  %1 = add i8 %0, 1
  store i8 %1, ptr @__sancov_gen_.2, align 1, !nosanitize !15
  %2 = load i1, ptr @__sancov_gen_.3, align 1, !nosanitize !15
  %3 = icmp eq i1 %2, false
  br i1 %3, label %4, label %5, !prof !16

4:                                                ; preds = %entry
  store i1 true, ptr @__sancov_gen_.3, align 1, !nosanitize !15
  br label %5

5:                                                ; preds = %entry, %4
  %call = tail call i64 @strlen(ptr noundef nonnull dereferenceable(1) %s) #4
  %cmp15.not = icmp eq i64 %call, 0
  br i1 %cmp15.not, label %entry.for.cond.cleanup_crit_edge, label %entry.for.body_crit_edge

entry.for.body_crit_edge:                         ; preds = %5
  br label %for.body

entry.for.cond.cleanup_crit_edge:                 ; preds = %5
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_, i64 0, i64 1)) #3
  %6 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 1), align 1, !nosanitize !15
  %7 = add i8 %6, 1
  store i8 %7, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 1), align 1, !nosanitize !15
  %8 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 1), align 1, !nosanitize !15
  %9 = icmp eq i1 %8, false
  br i1 %9, label %10, label %11, !prof !16

10:                                               ; preds = %entry.for.cond.cleanup_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 1), align 1, !nosanitize !15
  br label %11

11:                                               ; preds = %entry.for.cond.cleanup_crit_edge, %10
  br label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %69, %11
  %n.0.lcssa = phi i32 [ 0, %11 ], [ %n.1, %69 ]
  %12 = load i32, ptr @counter, align 4, !tbaa !11
  %add5 = add nsw i32 %12, %n.0.lcssa
  store i32 %add5, ptr @counter, align 4, !tbaa !11
  %add7 = add nsw i32 %n.0.lcssa, 104
  ret i32 %add7

for.body:                                         ; preds = %63, %entry.for.body_crit_edge
  %i.017 = phi i64 [ %inc, %63 ], [ 0, %entry.for.body_crit_edge ]
  %n.016 = phi i32 [ %n.1, %63 ], [ 0, %entry.for.body_crit_edge ]
  %arrayidx = getelementptr inbounds nuw i8, ptr %s, i64 %i.017
  %13 = ptrtoint ptr %arrayidx to i64
  %14 = lshr i64 %13, 3
  %15 = add i64 %14, 2147450880
  %16 = inttoptr i64 %15 to ptr
  %17 = load i8, ptr %16, align 1
  %18 = icmp ne i8 %17, 0
  br i1 %18, label %19, label %24, !prof !16

19:                                               ; preds = %for.body
  %20 = and i64 %13, 7
  %21 = trunc i64 %20 to i8
  %22 = icmp sge i8 %21, %17
  br i1 %22, label %23, label %24

23:                                               ; preds = %19
  call void @__asan_report_load1(i64 %13) #3
  unreachable

24:                                               ; preds = %19, %for.body
  %25 = load i8, ptr %arrayidx, align 1, !tbaa !17
  %cmp1 = icmp eq i8 %25, 120
  br i1 %cmp1, label %if.then, label %for.body.for.inc_crit_edge

for.body.for.inc_crit_edge:                       ; preds = %24
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_, i64 0, i64 2)) #3
  %26 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 2), align 1, !nosanitize !15
  %27 = add i8 %26, 1
  store i8 %27, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 2), align 1, !nosanitize !15
  %28 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 2), align 1, !nosanitize !15
  %29 = icmp eq i1 %28, false
  br i1 %29, label %30, label %31, !prof !16

30:                                               ; preds = %for.body.for.inc_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 2), align 1, !nosanitize !15
  br label %31

31:                                               ; preds = %for.body.for.inc_crit_edge, %30
  br label %for.inc

if.then:                                          ; preds = %24
  %conv3 = trunc i64 %i.017 to i32
  %cmp.i = icmp sgt i32 %conv3, 3
  br i1 %cmp.i, label %cond.true.i, label %cond.false.i

cond.true.i:                                      ; preds = %if.then
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_, i64 0, i64 3)) #3
  %32 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 3), align 1, !nosanitize !15
  %33 = add i8 %32, 1
  store i8 %33, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 3), align 1, !nosanitize !15
  %34 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 3), align 1, !nosanitize !15
  %35 = icmp eq i1 %34, false
  br i1 %35, label %36, label %37, !prof !16

36:                                               ; preds = %cond.true.i
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 3), align 1, !nosanitize !15
  br label %37

37:                                               ; preds = %cond.true.i, %36
  %mul.i = shl nuw nsw i32 %conv3, 1
  br label %for.inc

cond.false.i:                                     ; preds = %if.then
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_, i64 0, i64 4)) #3
  %38 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 4), align 1, !nosanitize !15
  %39 = add i8 %38, 1
  store i8 %39, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 4), align 1, !nosanitize !15
  %40 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 4), align 1, !nosanitize !15
  %41 = icmp eq i1 %40, false
  br i1 %41, label %42, label %43, !prof !16

42:                                               ; preds = %cond.false.i
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 4), align 1, !nosanitize !15
  br label %43

43:                                               ; preds = %cond.false.i, %42
  %and.i = and i64 %i.017, 15
  %arrayidx.i = getelementptr inbounds nuw i32, ptr @table, i64 %and.i
  %44 = ptrtoint ptr %arrayidx.i to i64
  %45 = lshr i64 %44, 3
  %46 = add i64 %45, 2147450880
  %47 = inttoptr i64 %46 to ptr
  %48 = load i8, ptr %47, align 1
  %49 = icmp ne i8 %48, 0
  br i1 %49, label %50, label %56, !prof !16

50:                                               ; preds = %43
  %51 = and i64 %44, 7
  %52 = add i64 %51, 3
  %53 = trunc i64 %52 to i8
  %54 = icmp sge i8 %53, %48
  br i1 %54, label %55, label %56

55:                                               ; preds = %50
  call void @__asan_report_load4(i64 %44) #3
  unreachable

56:                                               ; preds = %50, %43
  %57 = load i32, ptr %arrayidx.i, align 4, !tbaa !11
  %add.i = add nsw i32 %57, %conv3
  br label %for.inc

for.inc:                                          ; preds = %31, %56, %37
  %call4.pn = phi i32 [ -1, %31 ], [ %mul.i, %37 ], [ %add.i, %56 ]
  %n.1 = add nsw i32 %call4.pn, %n.016
  %inc = add nuw i64 %i.017, 1
  %exitcond.not = icmp eq i64 %inc, %call
  br i1 %exitcond.not, label %for.inc.for.cond.cleanup_crit_edge, label %for.inc.for.body_crit_edge, !llvm.loop !18

for.inc.for.body_crit_edge:                       ; preds = %for.inc
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_, i64 0, i64 5)) #3
  %58 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 5), align 1, !nosanitize !15
  %59 = add i8 %58, 1
  store i8 %59, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 5), align 1, !nosanitize !15
  %60 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 5), align 1, !nosanitize !15
  %61 = icmp eq i1 %60, false
  br i1 %61, label %62, label %63, !prof !16

62:                                               ; preds = %for.inc.for.body_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 5), align 1, !nosanitize !15
  br label %63

63:                                               ; preds = %for.inc.for.body_crit_edge, %62
  br label %for.body, !llvm.loop !18

for.inc.for.cond.cleanup_crit_edge:               ; preds = %for.inc
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_, i64 0, i64 6)) #3
  %64 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 6), align 1, !nosanitize !15
  %65 = add i8 %64, 1
  store i8 %65, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.2, i64 0, i64 6), align 1, !nosanitize !15
  %66 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 6), align 1, !nosanitize !15
  %67 = icmp eq i1 %66, false
  br i1 %67, label %68, label %69, !prof !16

68:                                               ; preds = %for.inc.for.cond.cleanup_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.3, i64 0, i64 6), align 1, !nosanitize !15
  br label %69

69:                                               ; preds = %for.inc.for.cond.cleanup_crit_edge, %68
  br label %for.cond.cleanup, !llvm.loop !18
}

; Function Attrs: mustprogress nobuiltin nocallback nofree nounwind willreturn
declare i64 @strlen(ptr noundef captures(none)) local_unnamed_addr #1

; Function Attrs: nofree norecurse nounwind sanitize_address memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
define dso_local range(i32 -2147483544, -2147483648) i32 @main(i32 noundef %argc, ptr noundef readonly captures(none) %argv) local_unnamed_addr #0 comdat {
entry:
  call void @__sanitizer_cov_trace_pc_guard(ptr @__sancov_gen_.5) #3
  %0 = load i8, ptr @__sancov_gen_.6, align 1, !nosanitize !15
  %1 = add i8 %0, 1
  store i8 %1, ptr @__sancov_gen_.6, align 1, !nosanitize !15
  %2 = load i1, ptr @__sancov_gen_.7, align 1, !nosanitize !15
  %3 = icmp eq i1 %2, false
  br i1 %3, label %4, label %5, !prof !16

4:                                                ; preds = %entry
  store i1 true, ptr @__sancov_gen_.7, align 1, !nosanitize !15
  br label %5

5:                                                ; preds = %entry, %4
  %cmp = icmp sgt i32 %argc, 1
  %arrayidx = getelementptr inbounds nuw i8, ptr %argv, i64 8
  %cond.in = select i1 %cmp, ptr %arrayidx, ptr @names
  %6 = ptrtoint ptr %cond.in to i64
  %7 = lshr i64 %6, 3
  %8 = add i64 %7, 2147450880
  %9 = inttoptr i64 %8 to ptr
  %10 = load i8, ptr %9, align 1
  %11 = icmp ne i8 %10, 0
  br i1 %11, label %12, label %13

12:                                               ; preds = %5
  call void @__asan_report_load8(i64 %6) #3
  unreachable

13:                                               ; preds = %5
  %cond = load ptr, ptr %cond.in, align 8, !tbaa !21
  %call.i = tail call i64 @strlen(ptr noundef nonnull readonly dereferenceable(1) %cond) #4
  %cmp15.not.i = icmp eq i64 %call.i, 0
  br i1 %cmp15.not.i, label %entry.process.exit_crit_edge, label %entry.for.body.i_crit_edge

entry.for.body.i_crit_edge:                       ; preds = %13
  br label %for.body.i

entry.process.exit_crit_edge:                     ; preds = %13
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_.5, i64 0, i64 1)) #3
  %14 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 1), align 1, !nosanitize !15
  %15 = add i8 %14, 1
  store i8 %15, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 1), align 1, !nosanitize !15
  %16 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 1), align 1, !nosanitize !15
  %17 = icmp eq i1 %16, false
  br i1 %17, label %18, label %19, !prof !16

18:                                               ; preds = %entry.process.exit_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 1), align 1, !nosanitize !15
  br label %19

19:                                               ; preds = %entry.process.exit_crit_edge, %18
  br label %process.exit

for.body.i:                                       ; preds = %70, %entry.for.body.i_crit_edge
  %i.017.i = phi i64 [ %inc.i, %70 ], [ 0, %entry.for.body.i_crit_edge ]
  %n.016.i = phi i32 [ %n.1.i, %70 ], [ 0, %entry.for.body.i_crit_edge ]
  %arrayidx.i = getelementptr inbounds nuw i8, ptr %cond, i64 %i.017.i
  %20 = ptrtoint ptr %arrayidx.i to i64
  %21 = lshr i64 %20, 3
  %22 = add i64 %21, 2147450880
  %23 = inttoptr i64 %22 to ptr
  %24 = load i8, ptr %23, align 1
  %25 = icmp ne i8 %24, 0
  br i1 %25, label %26, label %31, !prof !16

26:                                               ; preds = %for.body.i
  %27 = and i64 %20, 7
  %28 = trunc i64 %27 to i8
  %29 = icmp sge i8 %28, %24
  br i1 %29, label %30, label %31

30:                                               ; preds = %26
  call void @__asan_report_load1(i64 %20) #3
  unreachable

31:                                               ; preds = %26, %for.body.i
  %32 = load i8, ptr %arrayidx.i, align 1, !tbaa !17
  %cmp1.i = icmp eq i8 %32, 120
  br i1 %cmp1.i, label %if.then.i, label %for.body.i.for.inc.i_crit_edge

for.body.i.for.inc.i_crit_edge:                   ; preds = %31
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_.5, i64 0, i64 2)) #3
  %33 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 2), align 1, !nosanitize !15
  %34 = add i8 %33, 1
  store i8 %34, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 2), align 1, !nosanitize !15
  %35 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 2), align 1, !nosanitize !15
  %36 = icmp eq i1 %35, false
  br i1 %36, label %37, label %38, !prof !16

37:                                               ; preds = %for.body.i.for.inc.i_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 2), align 1, !nosanitize !15
  br label %38

38:                                               ; preds = %for.body.i.for.inc.i_crit_edge, %37
  br label %for.inc.i

if.then.i:                                        ; preds = %31
  %conv3.i = trunc i64 %i.017.i to i32
  %cmp.i.i = icmp sgt i32 %conv3.i, 3
  br i1 %cmp.i.i, label %cond.true.i.i, label %cond.false.i.i

cond.true.i.i:                                    ; preds = %if.then.i
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_.5, i64 0, i64 3)) #3
  %39 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 3), align 1, !nosanitize !15
  %40 = add i8 %39, 1
  store i8 %40, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 3), align 1, !nosanitize !15
  %41 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 3), align 1, !nosanitize !15
  %42 = icmp eq i1 %41, false
  br i1 %42, label %43, label %44, !prof !16

43:                                               ; preds = %cond.true.i.i
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 3), align 1, !nosanitize !15
  br label %44

44:                                               ; preds = %cond.true.i.i, %43
  %mul.i.i = shl nuw nsw i32 %conv3.i, 1
  br label %for.inc.i

cond.false.i.i:                                   ; preds = %if.then.i
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_.5, i64 0, i64 4)) #3
  %45 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 4), align 1, !nosanitize !15
  %46 = add i8 %45, 1
  store i8 %46, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 4), align 1, !nosanitize !15
  %47 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 4), align 1, !nosanitize !15
  %48 = icmp eq i1 %47, false
  br i1 %48, label %49, label %50, !prof !16

49:                                               ; preds = %cond.false.i.i
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 4), align 1, !nosanitize !15
  br label %50

50:                                               ; preds = %cond.false.i.i, %49
  %and.i.i = and i64 %i.017.i, 15
  %arrayidx.i.i = getelementptr inbounds nuw i32, ptr @table, i64 %and.i.i
  %51 = ptrtoint ptr %arrayidx.i.i to i64
  %52 = lshr i64 %51, 3
  %53 = add i64 %52, 2147450880
  %54 = inttoptr i64 %53 to ptr
  %55 = load i8, ptr %54, align 1
  %56 = icmp ne i8 %55, 0
  br i1 %56, label %57, label %63, !prof !16

57:                                               ; preds = %50
  %58 = and i64 %51, 7
  %59 = add i64 %58, 3
  %60 = trunc i64 %59 to i8
  %61 = icmp sge i8 %60, %55
  br i1 %61, label %62, label %63

62:                                               ; preds = %57
  call void @__asan_report_load4(i64 %51) #3
  unreachable

63:                                               ; preds = %57, %50
  %64 = load i32, ptr %arrayidx.i.i, align 4, !tbaa !11
  %add.i.i = add nsw i32 %64, %conv3.i
  br label %for.inc.i

for.inc.i:                                        ; preds = %38, %63, %44
  %call4.pn.i = phi i32 [ -1, %38 ], [ %mul.i.i, %44 ], [ %add.i.i, %63 ]
  %n.1.i = add nsw i32 %call4.pn.i, %n.016.i
  %inc.i = add nuw i64 %i.017.i, 1
  %exitcond.not.i = icmp eq i64 %inc.i, %call.i
  br i1 %exitcond.not.i, label %for.inc.i.process.exit_crit_edge, label %for.inc.i.for.body.i_crit_edge, !llvm.loop !18

for.inc.i.for.body.i_crit_edge:                   ; preds = %for.inc.i
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_.5, i64 0, i64 5)) #3
  %65 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 5), align 1, !nosanitize !15
  %66 = add i8 %65, 1
  store i8 %66, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 5), align 1, !nosanitize !15
  %67 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 5), align 1, !nosanitize !15
  %68 = icmp eq i1 %67, false
  br i1 %68, label %69, label %70, !prof !16

69:                                               ; preds = %for.inc.i.for.body.i_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 5), align 1, !nosanitize !15
  br label %70

70:                                               ; preds = %for.inc.i.for.body.i_crit_edge, %69
  br label %for.body.i, !llvm.loop !18

for.inc.i.process.exit_crit_edge:                 ; preds = %for.inc.i
  call void @__sanitizer_cov_trace_pc_guard(ptr getelementptr inbounds ([7 x i32], ptr @__sancov_gen_.5, i64 0, i64 6)) #3
  %71 = load i8, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 6), align 1, !nosanitize !15
  %72 = add i8 %71, 1
  store i8 %72, ptr getelementptr ([7 x i8], ptr @__sancov_gen_.6, i64 0, i64 6), align 1, !nosanitize !15
  %73 = load i1, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 6), align 1, !nosanitize !15
  %74 = icmp eq i1 %73, false
  br i1 %74, label %75, label %76, !prof !16

75:                                               ; preds = %for.inc.i.process.exit_crit_edge
  store i1 true, ptr getelementptr ([7 x i1], ptr @__sancov_gen_.7, i64 0, i64 6), align 1, !nosanitize !15
  br label %76

76:                                               ; preds = %for.inc.i.process.exit_crit_edge, %75
  br label %process.exit, !llvm.loop !18

process.exit:                                     ; preds = %76, %19
  %n.0.lcssa.i = phi i32 [ 0, %19 ], [ %n.1.i, %76 ]
  %77 = load i32, ptr @counter, align 4, !tbaa !11
  %add5.i = add nsw i32 %77, %n.0.lcssa.i
  store i32 %add5.i, ptr @counter, align 4, !tbaa !11
  %add7.i = add nsw i32 %n.0.lcssa.i, 104
  ret i32 %add7.i
}

declare void @__sanitizer_cov_trace_pc_guard(ptr)

declare void @__sanitizer_cov_trace_pc_guard_init(ptr, ptr)

; Function Attrs: nounwind uwtable
define internal void @sancov.module_ctor_trace_pc_guard() #2 comdat {
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_trace_pc_guard_init(ptr @__start___sancov_guards, ptr @__stop___sancov_guards)
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_8bit_counters_init(ptr, ptr)

; Function Attrs: nounwind uwtable
define internal void @sancov.module_ctor_8bit_counters() #2 comdat {
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_8bit_counters_init(ptr @__start___sancov_cntrs, ptr @__stop___sancov_cntrs)
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_bool_flag_init(ptr, ptr)

; Function Attrs: nounwind uwtable
define internal void @sancov.module_ctor_bool_flag() #2 comdat {
  call void @__asan_before_dynamic_init(i64 ptrtoint (ptr @___asan_gen_module to i64))
  call void @__sanitizer_cov_bool_flag_init(ptr @__start___sancov_bools, ptr @__stop___sancov_bools)
  call void @__sanitizer_cov_pcs_init(ptr @__start___sancov_pcs, ptr @__stop___sancov_pcs)
  call void @__asan_after_dynamic_init()
  ret void
}

declare void @__sanitizer_cov_pcs_init(ptr, ptr)

declare void @__asan_report_load1(i64)

declare void @__asan_report_load4(i64)

declare void @__asan_report_load8(i64)

declare void @__asan_before_dynamic_init(i64)

declare void @__asan_after_dynamic_init()

declare void @__asan_register_elf_globals(i64, i64, i64)

declare void @__asan_unregister_elf_globals(i64, i64, i64)

declare void @__asan_init()

; Function Attrs: nounwind uwtable
define internal void @asan.module_ctor() #2 comdat {
  call void @__asan_init()
  call void @__asan_version_mismatch_check_v8()
  call void @__asan_register_elf_globals(i64 ptrtoint (ptr @___asan_globals_registered to i64), i64 ptrtoint (ptr @__start_asan_globals to i64), i64 ptrtoint (ptr @__stop_asan_globals to i64))
  ret void
}

declare void @__asan_version_mismatch_check_v8()

; Function Attrs: nounwind uwtable
define internal void @asan.module_dtor() #2 comdat {
  call void @__asan_unregister_elf_globals(i64 ptrtoint (ptr @___asan_globals_registered to i64), i64 ptrtoint (ptr @__start_asan_globals to i64), i64 ptrtoint (ptr @__stop_asan_globals to i64))
  ret void
}

attributes #0 = { nofree norecurse nounwind sanitize_address memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nobuiltin nocallback nofree nounwind willreturn "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nounwind uwtable "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" }
attributes #3 = { nomerge }
attributes #4 = { nobuiltin nounwind willreturn memory(read) }

!llvm.module.flags = !{!5, !6, !7, !8, !9}
!llvm.ident = !{!10}
!llvm.errno.tbaa = !{!11}

!0 = !{ptr @table}
!1 = !{ptr @.str}
!2 = !{ptr @.str.1}
!3 = !{ptr @names}
!4 = !{ptr @counter}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 8, !"PIC Level", i32 2}
!7 = !{i32 7, !"PIE Level", i32 2}
!8 = !{i32 7, !"uwtable", i32 2}
!9 = !{i32 4, !"nosanitize_address", i32 1}
!10 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!11 = !{!12, !12, i64 0}
!12 = !{!"int", !13, i64 0}
!13 = !{!"omnipotent char", !14, i64 0}
!14 = !{!"Simple C/C++ TBAA"}
!15 = !{}
!16 = !{!"branch_weights", i32 1, i32 1048575}
!17 = !{!13, !13, i64 0}
!18 = distinct !{!18, !19, !20}
!19 = !{!"llvm.loop.mustprogress"}
!20 = !{!"llvm.loop.unroll.disable"}
!21 = !{!22, !22, i64 0}
!22 = !{!"p1 omnipotent char", !23, i64 0}
!23 = !{!"any pointer", !13, i64 0}
