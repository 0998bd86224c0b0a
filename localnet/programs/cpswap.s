# cpswap — localnet's constant-product pool program (sBPF v0, assembled by
# llvm-mc -triple bpfel; programs/build.mjs wraps the text in an ELF).
#
# One instruction: sell tokens the caller has already moved into the pool's
# token account (earlier in the same transaction) for the pool's SOL.
#   accounts: 0 pool (writable, owned by this program, 80 bytes of data)
#             1 the pool's token account (165 bytes, owned by the token program)
#             2 destination of the SOL (writable, a system account, no data)
#   data:     u64 LE minimum out, in lamports
# Pool data: [0,32) its token account, [32,40) the token reserve it last
# recorded, [40,48) the lamports it never goes below (rent), [48,80) the
# token program.
#
# in  = token account amount - recorded reserve (what arrived since)
# fee = ceil(in * 30 / 10000); net = in - fee
# out = floor(y * net / (x + net)), x the recorded reserve, y the pool's
#       lamports above its floor (128-bit product, long division)
# out < minimum fails the instruction (custom error 10): the chain, not the
# pool's owner, holds the caller's side and the minimum.
#
# The serialized input (SBPF v0, aligned): u64 account count, then per
# account dup(1) signer(1) writable(1) executable(1) pad(4) key(32) owner(32)
# lamports(8) data_len(8) data 10240-byte spare, 8-alignment, rent_epoch(8);
# then u64 data length and the data. Every size is checked, so the fixed
# offsets below hold:
#   account 0 at 8:     lamports 80, data_len 88, data 96
#   account 1 at 10424: key 10432, owner 10464, data_len 10504, amount 10576
#   account 2 at 20928: writable 20930, lamports 21000, data_len 21008
#   instruction data length 31264, data 31272
	.text
	.globl	entrypoint
entrypoint:
	r6 = r1
	r2 = *(u64 *)(r6 + 0)
	if r2 != 3 goto bad_accounts
	r2 = *(u8 *)(r6 + 8)
	if r2 != 255 goto bad_pool
	r2 = *(u8 *)(r6 + 10)
	if r2 == 0 goto bad_pool
	r2 = *(u64 *)(r6 + 88)
	if r2 != 80 goto bad_pool
	r2 = *(u8 *)(r6 + 10424)
	if r2 != 255 goto bad_token_account
	r2 = *(u64 *)(r6 + 10504)
	if r2 != 165 goto bad_token_account
	# the token account is the pool's, owned by the pool's token program
	r2 = *(u64 *)(r6 + 10432)
	r3 = *(u64 *)(r6 + 96)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10440)
	r3 = *(u64 *)(r6 + 104)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10448)
	r3 = *(u64 *)(r6 + 112)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10456)
	r3 = *(u64 *)(r6 + 120)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10464)
	r3 = *(u64 *)(r6 + 144)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10472)
	r3 = *(u64 *)(r6 + 152)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10480)
	r3 = *(u64 *)(r6 + 160)
	if r2 != r3 goto bad_token_account
	r2 = *(u64 *)(r6 + 10488)
	r3 = *(u64 *)(r6 + 168)
	if r2 != r3 goto bad_token_account
	r2 = *(u8 *)(r6 + 20928)
	if r2 != 255 goto bad_destination
	r2 = *(u8 *)(r6 + 20930)
	if r2 == 0 goto bad_destination
	r2 = *(u64 *)(r6 + 21008)
	if r2 != 0 goto bad_destination
	r2 = *(u64 *)(r6 + 31264)
	if r2 != 8 goto bad_data
	r9 = *(u64 *)(r6 + 31272)

	# in = amount - recorded reserve
	r7 = *(u64 *)(r6 + 10576)
	*(u64 *)(r10 - 8) = r7
	r8 = *(u64 *)(r6 + 128)
	if r7 <= r8 goto nothing_in
	r3 = r7
	r3 -= r8
	r4 = 1
	r4 <<= 58
	if r3 > r4 goto too_large
	# fee = ceil(in * 30 / 10000); net = in - fee
	r2 = r3
	r2 *= 30
	r2 += 9999
	r2 /= 10000
	r3 -= r2
	if r3 == 0 goto nothing_in
	# y = lamports above the floor
	r4 = *(u64 *)(r6 + 80)
	r5 = *(u64 *)(r6 + 136)
	if r4 <= r5 goto empty_pool
	r4 -= r5
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
	r2 = *(u64 *)(r6 + 80)
	r2 -= r0
	*(u64 *)(r6 + 80) = r2
	r2 = *(u64 *)(r6 + 21000)
	r2 += r0
	*(u64 *)(r6 + 21000) = r2
	r2 = *(u64 *)(r10 - 8)
	*(u64 *)(r6 + 128) = r2
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
below_minimum:
	r0 = 10
	exit
