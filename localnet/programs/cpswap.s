# cpswap — localnet's constant-product pool program (SBPF v0, assembled by
# llvm-mc -triple bpfel; build.mjs wraps the text in an ELF).
#
# A pool is an account this program owns (128 bytes of data) at the address
# derived from [mint, bump] (so the program can sign for it), holding the
# SOL reserve above its rent floor, and the state's associated token account
# for the mint. Pool data:
#   [0,32) its token account      [32,40) token reserve recorded
#   [40,48) rent floor (lamports) [48,80) the token program
#   [80,88) SOL reserve recorded  [88,120) the mint (seed)  [120] the bump
#
# What came in is what arrived since the reserves were recorded, moved by
# the caller earlier in the same transaction: tokens into the pool's token
# account, or SOL into the pool's account. Two instructions, told apart by
# their account count; data is the u64 LE minimum out:
#   sell (3 accounts): pool (w), pool token account, SOL destination (w,
#        a system account, no data): pays SOL out of the pool's lamports.
#   buy  (4 accounts): pool (w), pool token account (w), the buyer's token
#        account (w), the token program: the program signs, as the pool, a
#        token Transfer to the buyer's account (sol_invoke_signed_c).
#
# fee = ceil(in * 30 / 10000); net = in - fee
# out = floor(y * net / (x + net)), x the input side's recorded reserve, y
#       the output side's (128-bit product, long division)
# out below the minimum fails the instruction (custom error 10): the chain,
# not the pool's owner, holds the caller's side and the minimum.
#
# The serialized input (SBPF v0, aligned): u64 account count, then per
# account dup(1) signer(1) writable(1) executable(1) pad(4) key(32) owner(32)
# lamports(8) data_len(8) data, a 10240-byte spare, 8-alignment,
# rent_epoch(8); then u64 data length and the data. Sizes are checked, so
# these offsets hold:
#   account 0 at 8:     writable 10, key 16, owner 48, lamports 80,
#                       data_len 88, data 96 (fields at 96, 128, 136, 144,
#                       176, 184, 216), rent_epoch 10464
#   account 1 at 10472: writable 10474, key 10480, owner 10512, lamports
#                       10544, data_len 10552, data 10560, amount 10624,
#                       rent_epoch 20968
#   account 2 at 20976: writable 20978, key 20984, owner 21016, lamports
#                       21048, data_len 21056, data 21064, rent_epoch 31472
#   sell: instruction data length 31312, data 31320
#   buy:  account 3 at 31480: key 31488, data_len 31560; the data after it
	.text
	.globl	entrypoint
entrypoint:
	r6 = r1
	# the pool and its token account, checked for both instructions
	r2 = *(u8 *)(r6 + 8)
	if r2 != 255 goto bad_pool
	r2 = *(u8 *)(r6 + 10)
	if r2 == 0 goto bad_pool
	r2 = *(u64 *)(r6 + 88)
	if r2 != 128 goto bad_pool
	r2 = *(u8 *)(r6 + 10472)
	if r2 != 255 goto bad_token_account
	r2 = *(u64 *)(r6 + 10552)
	if r2 != 165 goto bad_token_account
	# the token account is the pool's, owned by the pool's token program
	r2 = *(u64 *)(r6 + 10480)
	r3 = *(u64 *)(r6 + 96)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10488)
	r3 = *(u64 *)(r6 + 104)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10496)
	r3 = *(u64 *)(r6 + 112)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10504)
	r3 = *(u64 *)(r6 + 120)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10512)
	r3 = *(u64 *)(r6 + 144)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10520)
	r3 = *(u64 *)(r6 + 152)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10528)
	r3 = *(u64 *)(r6 + 160)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10536)
	r3 = *(u64 *)(r6 + 168)
	if r2 != r3 goto bad_token_account
	# the pool's lamports hold its recorded SOL reserve above the floor
	r2 = *(u64 *)(r6 + 80)
	r3 = *(u64 *)(r6 + 136)
	r4 = *(u64 *)(r6 + 176)
	r3 += r4
	if r2 < r3 goto bad_pool
	r2 = *(u64 *)(r6 + 0)
	if r2 == 3 goto sell
	if r2 == 4 goto buy
	goto bad_accounts

sell:
	r2 = *(u8 *)(r6 + 20976)
	if r2 != 255 goto bad_destination
	r2 = *(u8 *)(r6 + 20978)
	if r2 == 0 goto bad_destination
	r2 = *(u64 *)(r6 + 21056)
	if r2 != 0 goto bad_destination
	r2 = *(u64 *)(r6 + 31312)
	if r2 != 8 goto bad_data
	r9 = *(u64 *)(r6 + 31320)
	# in = token amount - recorded token reserve; x = that reserve;
	# y = the recorded SOL reserve
	r7 = *(u64 *)(r6 + 10624)
	*(u64 *)(r10 - 8) = r7
	r8 = *(u64 *)(r6 + 128)
	if r7 <= r8 goto nothing_in
	r3 = r7
	r3 -= r8
	r4 = *(u64 *)(r6 + 176)
	goto swap_math_entry_sell

buy:
	r2 = *(u8 *)(r6 + 20976)
	if r2 != 255 goto bad_destination
	r2 = *(u8 *)(r6 + 20978)
	if r2 == 0 goto bad_destination
	r2 = *(u64 *)(r6 + 21056)
	if r2 != 165 goto bad_destination
	r2 = *(u8 *)(r6 + 31480)
	if r2 != 255 goto bad_token_program
	# account 3 is the pool's token program
	r2 = *(u64 *)(r6 + 31488)
	r3 = *(u64 *)(r6 + 144)
	if r2 != r3 goto bad_token_program
	r2 = *(u64 *)(r6 + 31496)
	r3 = *(u64 *)(r6 + 152)
	if r2 != r3 goto bad_token_program
	r2 = *(u64 *)(r6 + 31504)
	r3 = *(u64 *)(r6 + 160)
	if r2 != r3 goto bad_token_program
	r2 = *(u64 *)(r6 + 31512)
	r3 = *(u64 *)(r6 + 168)
	if r2 != r3 goto bad_token_program
	# the instruction data follows account 3's data, spare and rent epoch
	r2 = *(u64 *)(r6 + 31560)
	r3 = 1
	r3 <<= 32
	if r2 > r3 goto bad_token_program
	r2 += 31568
	r2 += 10240
	r2 += 7
	r2 >>= 3
	r2 <<= 3
	r2 += 8
	r2 += r6
	r3 = *(u64 *)(r2 + 0)
	if r3 != 8 goto bad_data
	r9 = *(u64 *)(r2 + 8)
	# in = lamports - floor - recorded SOL reserve; x = that reserve;
	# y = the recorded token reserve
	r7 = *(u64 *)(r6 + 80)
	r2 = *(u64 *)(r6 + 136)
	r7 -= r2
	*(u64 *)(r10 - 8) = r7
	r8 = *(u64 *)(r6 + 176)
	if r7 <= r8 goto nothing_in
	r3 = r7
	r3 -= r8
	r4 = *(u64 *)(r6 + 128)
	r2 = 1
	*(u64 *)(r10 - 32) = r2
	goto swap_math

swap_math_entry_sell:
	r2 = 0
	*(u64 *)(r10 - 32) = r2

	# in r3, x r8, y r4; r9 the minimum. out to r0.
swap_math:
	r5 = 1
	r5 <<= 58
	if r3 > r5 goto too_large
	# fee = ceil(in * 30 / 10000); net = in - fee
	r2 = r3
	r2 *= 30
	r2 += 9999
	r2 /= 10000
	r3 -= r2
	if r3 == 0 goto nothing_in
	if r4 == 0 goto empty_pool
	*(u64 *)(r10 - 16) = r4
	# d = x + net
	r5 = r8
	r5 += r3
	if r5 < r8 goto too_large
	*(u64 *)(r10 - 24) = r5

	# (hi r1, lo r7) = y (r4) * net (r3), from 32-bit halves
	r0 = r4
	r0 <<= 32
	r0 >>= 32
	r1 = r4
	r1 >>= 32
	r2 = r3
	r2 <<= 32
	r2 >>= 32
	r5 = r3
	r5 >>= 32
	r7 = r0
	r7 *= r2
	r8 = r0
	r8 *= r5
	r0 = r1
	r0 *= r2
	r1 *= r5
	r2 = r7
	r2 >>= 32
	r3 = r8
	r3 <<= 32
	r3 >>= 32
	r2 += r3
	r3 = r0
	r3 <<= 32
	r3 >>= 32
	r2 += r3
	r7 <<= 32
	r7 >>= 32
	r3 = r2
	r3 <<= 32
	r7 |= r3
	r8 >>= 32
	r1 += r8
	r0 >>= 32
	r1 += r0
	r2 >>= 32
	r1 += r2

	# out (r0) = (hi:lo) / d, restoring division; hi < d since net < d
	r5 = *(u64 *)(r10 - 24)
	if r1 >= r5 goto too_large
	r0 = 0
	r2 = 64
divide:
	r3 = r1
	r3 >>= 63
	r1 <<= 1
	r4 = r7
	r4 >>= 63
	r1 |= r4
	r7 <<= 1
	r0 <<= 1
	if r3 != 0 goto subtract
	if r1 < r5 goto next_bit
subtract:
	r1 -= r5
	r0 |= 1
next_bit:
	r2 -= 1
	if r2 != 0 goto divide

	if r0 < r9 goto below_minimum
	r4 = *(u64 *)(r10 - 16)
	if r0 >= r4 goto empty_pool
	r2 = *(u64 *)(r10 - 32)
	if r2 != 0 goto pay_tokens

	# sell: SOL out of the pool's lamports; the reserves recorded
	r2 = *(u64 *)(r6 + 80)
	r2 -= r0
	*(u64 *)(r6 + 80) = r2
	r2 = *(u64 *)(r6 + 21048)
	r2 += r0
	*(u64 *)(r6 + 21048) = r2
	r2 = *(u64 *)(r10 - 8)
	*(u64 *)(r6 + 128) = r2
	r2 = *(u64 *)(r6 + 176)
	r2 -= r0
	*(u64 *)(r6 + 176) = r2
	r0 = 0
	exit

pay_tokens:
	*(u64 *)(r10 - 40) = r0
	# Transfer data: [3, out u64 LE] at r10-56
	r2 = 3
	*(u8 *)(r10 - 56) = r2
	*(u64 *)(r10 - 55) = r0
	# SolAccountMeta[3] at r10-104: pool token account (w), buyer's (w), pool (signer)
	r2 = r6
	r2 += 10480
	*(u64 *)(r10 - 104) = r2
	r3 = 1
	*(u8 *)(r10 - 96) = r3
	r3 = 0
	*(u8 *)(r10 - 95) = r3
	r2 = r6
	r2 += 20984
	*(u64 *)(r10 - 88) = r2
	r3 = 1
	*(u8 *)(r10 - 80) = r3
	r3 = 0
	*(u8 *)(r10 - 79) = r3
	r2 = r6
	r2 += 16
	*(u64 *)(r10 - 72) = r2
	r3 = 0
	*(u8 *)(r10 - 64) = r3
	r3 = 1
	*(u8 *)(r10 - 63) = r3
	# SolInstruction at r10-144: program id, metas, 3, data, 9
	r2 = r6
	r2 += 144
	*(u64 *)(r10 - 144) = r2
	r2 = r10
	r2 -= 104
	*(u64 *)(r10 - 136) = r2
	r2 = 3
	*(u64 *)(r10 - 128) = r2
	r2 = r10
	r2 -= 56
	*(u64 *)(r10 - 120) = r2
	r2 = 9
	*(u64 *)(r10 - 112) = r2
	# SolAccountInfo[3] at r10-312 (56 bytes each)
	r2 = r6
	r2 += 10480
	*(u64 *)(r10 - 312) = r2
	r2 = r6
	r2 += 10544
	*(u64 *)(r10 - 304) = r2
	r2 = 165
	*(u64 *)(r10 - 296) = r2
	r2 = r6
	r2 += 10560
	*(u64 *)(r10 - 288) = r2
	r2 = r6
	r2 += 10512
	*(u64 *)(r10 - 280) = r2
	r2 = *(u64 *)(r6 + 20968)
	*(u64 *)(r10 - 272) = r2
	r3 = 0
	*(u8 *)(r10 - 264) = r3
	r3 = 1
	*(u8 *)(r10 - 263) = r3
	r3 = 0
	*(u8 *)(r10 - 262) = r3
	r2 = r6
	r2 += 20984
	*(u64 *)(r10 - 256) = r2
	r2 = r6
	r2 += 21048
	*(u64 *)(r10 - 248) = r2
	r2 = 165
	*(u64 *)(r10 - 240) = r2
	r2 = r6
	r2 += 21064
	*(u64 *)(r10 - 232) = r2
	r2 = r6
	r2 += 21016
	*(u64 *)(r10 - 224) = r2
	r2 = *(u64 *)(r6 + 31472)
	*(u64 *)(r10 - 216) = r2
	r3 = 0
	*(u8 *)(r10 - 208) = r3
	r3 = 1
	*(u8 *)(r10 - 207) = r3
	r3 = 0
	*(u8 *)(r10 - 206) = r3
	r2 = r6
	r2 += 16
	*(u64 *)(r10 - 200) = r2
	r2 = r6
	r2 += 80
	*(u64 *)(r10 - 192) = r2
	r2 = 128
	*(u64 *)(r10 - 184) = r2
	r2 = r6
	r2 += 96
	*(u64 *)(r10 - 176) = r2
	r2 = r6
	r2 += 48
	*(u64 *)(r10 - 168) = r2
	r2 = *(u64 *)(r6 + 10464)
	*(u64 *)(r10 - 160) = r2
	r3 = 0
	*(u8 *)(r10 - 152) = r3
	r3 = 1
	*(u8 *)(r10 - 151) = r3
	r3 = 0
	*(u8 *)(r10 - 150) = r3
	# signer seeds: [mint, bump] at r10-344, the one signer at r10-360
	r2 = r6
	r2 += 184
	*(u64 *)(r10 - 344) = r2
	r2 = 32
	*(u64 *)(r10 - 336) = r2
	r2 = r6
	r2 += 216
	*(u64 *)(r10 - 328) = r2
	r2 = 1
	*(u64 *)(r10 - 320) = r2
	r2 = r10
	r2 -= 344
	*(u64 *)(r10 - 360) = r2
	r2 = 2
	*(u64 *)(r10 - 352) = r2
	r1 = r10
	r1 -= 144
	r2 = r10
	r2 -= 312
	r3 = 3
	r4 = r10
	r4 -= 360
	r5 = 1
	call sol_invoke_signed_c
	if r0 != 0 goto cpi_failed
	# the reserves recorded: tokens less what was paid, SOL as it now is
	r0 = *(u64 *)(r10 - 40)
	r2 = *(u64 *)(r6 + 128)
	r2 -= r0
	*(u64 *)(r6 + 128) = r2
	r2 = *(u64 *)(r10 - 8)
	*(u64 *)(r6 + 176) = r2
	r0 = 0
	exit

bad_accounts:
	r0 = 1
	exit
bad_pool:
	r0 = 2
	exit
bad_token_account:
	r0 = 3
	exit
bad_destination:
	r0 = 4
	exit
bad_data:
	r0 = 5
	exit
nothing_in:
	r0 = 6
	exit
too_large:
	r0 = 7
	exit
empty_pool:
	r0 = 8
	exit
bad_token_program:
	r0 = 9
	exit
below_minimum:
	r0 = 10
	exit
cpi_failed:
	r0 = 11
	exit
