"""CPU settings (threads, oneDNN): the tables of a settings grid."""
