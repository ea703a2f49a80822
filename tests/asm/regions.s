# Program regions: names in order of first use (an identifier, a string
# with a space and a quote), a number that extends the table with a
# generated name, and a label of the same name as a region.
kernel:
	rbeg	kernel
	li	s2, 2
loop:
	rbeg	"tile \"A\""
	addi	t1, t1, 1
	rend	"tile \"A\""
	dbnz	s2, loop
	rbeg	(3)
	rend	3
	rend	kernel
	j	kernel
	halt
