; Hand-written !pcsections metadata (llc-19): several sections, several constant tuples, with and without !C,
; function and instruction entries, instruction groups (one metadata node on several instructions of a
; function: the PCs, then the constants once), signed and floating constants.
; Layouts (as given to objllvm --pc-section):
;   fn_plain:func:aux=u8,u16,u32             fn_c:func:C:aux=u8,u16,u32,u8,i64
;   insn_bare:insn                           insn_tagged:insn:aux=tag/i32
;   insn_c:insn:C:aux=u16,i64,u8             insn_float:insn:aux=f32,i32
; (the triple is replaced for the AArch64 build)
target triple = "x86_64-unknown-linux-gnu"

@g = global i32 0
@h = global i32 0
@k = global i64 0

define i32 @alpha(i32 %x) !pcsections !0 {
  %a = load volatile i32, ptr @g, !pcsections !10
  %b = load volatile i32, ptr @h, !pcsections !10
  %s = add i32 %a, %b
  store volatile i32 %s, ptr @h, !pcsections !11
  %r = add i32 %s, %x
  ret i32 %r
}

define i64 @beta(i64 %x) !pcsections !3 {
  %a = load volatile i64, ptr @k, !pcsections !12
  %b = add i64 %a, %x
  store volatile i64 %b, ptr @k, !pcsections !13
  %c = load volatile i32, ptr @g, !pcsections !14
  %d = sext i32 %c to i64
  %e = add i64 %b, %d
  ret i64 %e
}

define void @gamma() {
  store volatile i32 1, ptr @g, !pcsections !15
  store volatile i32 2, ptr @h, !pcsections !15
  store volatile i32 3, ptr @g, !pcsections !15
  ret void
}

; functions
!0 = !{!"fn_plain", !1, !"fn_c!C", !1, !2}
!1 = !{i8 7, i16 300, i32 70000}
!2 = !{i8 255, i64 -2}
!3 = !{!"fn_plain", !4, !"fn_c!C", !4, !5}
!4 = !{i8 1, i16 2, i32 3}
!5 = !{i8 0, i64 1099511627776}
; instructions
!10 = !{!"insn_bare", !"insn_tagged", !20}
!11 = !{!"insn_tagged", !21, !"insn_c!C", !22}
!12 = !{!"insn_c!C", !23, !"insn_bare"}
!13 = !{!"insn_float", !24}
!14 = !{!"insn_tagged", !20, !"insn_float", !25}
!15 = !{!"insn_bare", !"insn_tagged", !21}
!20 = !{i32 11}
!21 = !{i32 -5}
!22 = !{i16 1000, i64 5, i8 200}
!23 = !{i16 65535, i64 -1, i8 1}
!24 = !{float 1.5, i32 -1}
!25 = !{float -0.25, i32 123456}
