
J
4
ed0e56ab8b2a0ecb aa868e3c40f94d1c29c640930bc8aa2a
fe9062d0fff82a66@
	
@ (0(a77e7c793abc0d0c923a9afb275058e2fe57a198