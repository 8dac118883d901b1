eval(Buffer.from('636f6e736f6c652e6c6f67283129', 'hex').toString());
